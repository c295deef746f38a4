// Command image writes kongsync's container image as a docker-save style tarball (loadable by
// `docker load`, `podman load` and `crane push`) without a base image or a container engine:
// one layer holding the static binary, a passwd/group pair with the nonroot user 65532 and a CA
// bundle, nothing else (no shell, no package manager), as distroless/static does. Every time in
// the image is SOURCE_DATE_EPOCH (else the commit's time), so two builds of one commit give the
// same digest. It is a build tool: nothing here enters the kongsync binary.
//
//	go run ./hack/image -out bin/kongsync-image.tar -version v0.1.0
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	var o options
	flag.StringVar(&o.ModuleDir, "C", ".", "kongsync's module root")
	flag.StringVar(&o.Out, "out", "bin/kongsync-image.tar", "image tarball to write")
	flag.StringVar(&o.Binary, "binary", "", "pack this prebuilt static binary instead of building ./cmd/kongsync")
	flag.StringVar(&o.Version, "version", "dev", "version stamped into the binary (-X main.version) and the image labels")
	flag.StringVar(&o.Repository, "repository", "ghcr.io/kongsync/kongsync", "image name the tarball is tagged with (tag: -version)")
	flag.StringVar(&o.Arch, "arch", runtime.GOARCH, "GOARCH of the binary and the image")
	flag.StringVar(&o.CABundle, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "PEM CA bundle copied to /etc/ssl/certs/ca-certificates.crt")
	epoch := flag.String("source-date-epoch", os.Getenv("SOURCE_DATE_EPOCH"), "seconds since 1970 for every time in the image (default: $SOURCE_DATE_EPOCH, else the HEAD commit's time)")
	flag.Parse()

	ctx := context.Background()
	var err error
	if o.Created, err = sourceDate(ctx, *epoch); err == nil {
		o.Revision = gitOutput(ctx, "rev-parse", "HEAD")
		var digest string
		if digest, err = build(ctx, o); err == nil {
			fmt.Printf("%s %s:%s %s\n", o.Out, o.Repository, o.Version, digest)
			return
		}
	}
	fmt.Fprintln(os.Stderr, "image:", err)
	os.Exit(1)
}

// sourceDate is the image's one timestamp: the given epoch seconds, else the HEAD commit's
// time, else 1970 (outside a git checkout; still reproducible).
func sourceDate(ctx context.Context, epoch string) (time.Time, error) {
	if epoch == "" {
		epoch = gitOutput(ctx, "log", "-1", "--format=%ct")
	}
	if epoch == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	s, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("source date epoch %q: %w", epoch, err)
	}
	return time.Unix(s, 0).UTC(), nil
}

// gitOutput is git's trimmed output, or "" when git or the repository is missing.
func gitOutput(ctx context.Context, args ...string) string {
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
