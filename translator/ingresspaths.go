package translator

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// collapseSlashes replaces every run of slashes with one slash, as KIC does before translating
// a path. It returns p itself when there is nothing to collapse.
func collapseSlashes(p string) string {
	if !strings.Contains(p, "//") {
		return p
	}
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && i > 0 && p[i-1] == '/' {
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// ingressPaths turns one Ingress path into Kong route paths, KIC's way: Prefix `/foo` gives
// `/foo/` and `~/foo$` (Prefix `/` gives `/`), Exact gives `~/foo$` (not regex-escaped),
// ImplementationSpecific passes the path through. The path must already have its slashes
// collapsed and be non-empty. Each result then gets the regex marker rewritten and, with legacy
// (the class parameters' enableLegacyRegexDetection), KIC's legacy regex detection.
func ingressPaths(path string, pt networkingv1.PathType, marker string, legacy bool, dst []string) []string {
	n := len(dst)
	switch pt {
	case networkingv1.PathTypePrefix:
		base := strings.Trim(path, "/")
		if base == "" {
			dst = append(dst, "/")
		} else {
			dst = append(dst, "/"+base+"/", kongRegexPrefix+"/"+base+"$")
		}
	case networkingv1.PathTypeExact:
		dst = append(dst, kongRegexPrefix+"/"+strings.TrimLeft(path, "/")+"$")
	default: // ImplementationSpecific (the caller maps unknown types to a problem)
		dst = append(dst, path)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = applyRegexMarker(dst[i], marker)
		if legacy {
			dst[i] = legacyRegexPath(dst[i])
		}
	}
	return dst
}

// applyRegexMarker replaces a leading regex marker with Kong's regex prefix.
func applyRegexMarker(p, marker string) string {
	if strings.HasPrefix(p, marker) {
		return kongRegexPrefix + p[len(marker):]
	}
	return p
}
