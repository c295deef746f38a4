package workload

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Write streams the workload as a multi-document manifest: YAML (format "yaml") or one compact
// JSON object per document (format "json"). Documents are separated by "---" lines in both
// formats, which kubectl and kongsync's manifest reader both split on; a bare stream of JSON
// objects would not be read as several documents by the latter.
func Write(w io.Writer, c Config, format string) error {
	var marshal func(any) ([]byte, error)
	switch format {
	case "yaml":
		marshal = yaml.Marshal
	case "json":
		marshal = json.Marshal
	default:
		return fmt.Errorf("format must be yaml or json, not %q", format)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	err := Each(c, func(o runtime.Object) error {
		b, err := marshal(o)
		if err != nil {
			return err
		}
		bw.WriteString("---\n")
		bw.Write(b)
		if len(b) == 0 || b[len(b)-1] != '\n' {
			bw.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// ParseSize reads a byte size such as "256KiB", "1MiB", "300Ki", "4096" or "2M" (decimal).
func ParseSize(s string) (int, error) {
	units := []struct {
		suffix string
		mult   int
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"Ki", 1 << 10}, {"Mi", 1 << 20},
		{"KB", 1000}, {"MB", 1000 * 1000}, {"K", 1000}, {"M", 1000 * 1000}, {"B", 1},
	}
	mult, num := 1, strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			mult, num = u.mult, strings.TrimSuffix(num, u.suffix)
			break
		}
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q: want a number with an optional KiB, MiB, KB or MB suffix", s)
	}
	return n * mult, nil
}
