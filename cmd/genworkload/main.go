// Command genworkload writes the synthetic cluster kongsync is benchmarked on as manifests on
// stdout: N Ingresses of class kong, each with its own Service and 2-endpoint EndpointSlice, the
// IngressClass, and optionally TLS Secrets, KongConsumers with key-auth credentials (in
// KongConsumerGroups), KongPlugins
// the Ingresses reference, large unrelated Secrets, and N HTTPRoutes (each with its own Service
// and EndpointSlice) on one Gateway "kong" of a GatewayClass of KIC's controller. Output is
// deterministic for the same flags, so `kongsync dump -f`, `kubectl apply -f` and other
// controllers can all be fed the identical workload:
//
//	go run ./cmd/genworkload -ingresses 10000 > /tmp/w10k.yaml
//	go run ./cmd/genworkload -httproutes 10000 > /tmp/r10k.yaml
//	go run ./cmd/genworkload -consumers 10000 -consumer-groups 100 > /tmp/c10k.yaml
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kongsync/kongsync/internal/workload"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("genworkload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := workload.Defaults(0)
	fs.IntVar(&c.Ingresses, "ingresses", 0, "number of Ingresses (each with its own Service and EndpointSlice)")
	fs.IntVar(&c.HTTPRoutes, "httproutes", 0, "number of HTTPRoutes (each with one rule, one PathPrefix match, its own Service and EndpointSlice) on one Gateway \"kong\" (HTTP, port 80) of GatewayClass \"kong\" ("+workload.GatewayControllerName+")")
	fs.IntVar(&c.TLSSecrets, "tls-secrets", 0, "give the first K Ingresses TLS, each with its own self-signed kubernetes.io/tls Secret")
	fs.IntVar(&c.UnrelatedSecrets, "unrelated-secrets", 0, "number of Opaque Secrets no Ingress references")
	fs.IntVar(&c.Consumers, "consumers", 0, "number of KongConsumers, each with a key-auth credential Secret")
	fs.IntVar(&c.ConsumerGroups, "consumer-groups", 0, "number of KongConsumerGroups (a multiple of -namespaces); consumer i joins group i mod G")
	fs.IntVar(&c.Plugins, "plugins", 0, "number of KongPlugins (in each namespace); Ingress i references plugin i mod K")
	size := fs.String("secret-size", "256KiB", "data size of each unrelated Secret (KiB, MiB, KB, MB suffixes)")
	fs.IntVar(&c.Namespaces, "namespaces", 1, "spread objects over this many namespaces (1 = default; more = bench-0.. with Namespace objects)")
	fs.Int64Var(&c.Seed, "seed", 0, "varies UIDs, keys and Secret data; names stay the same")
	fs.BoolVar(&c.UIDs, "uids", true, "set deterministic metadata.uid (turn off to re-apply the file to a live cluster with kubectl apply)")
	format := fs.String("format", "yaml", "yaml or json (one JSON object per --- separated document)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "genworkload: unexpected arguments:", fs.Args())
		return 2
	}
	n, err := workload.ParseSize(*size)
	if err != nil {
		fmt.Fprintln(stderr, "genworkload: -secret-size:", err)
		return 2
	}
	c.SecretSize = n
	if err := workload.Write(stdout, c, *format); err != nil {
		fmt.Fprintln(stderr, "genworkload:", err)
		return 1
	}
	return 0
}
