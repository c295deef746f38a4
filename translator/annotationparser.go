package translator

import (
	"strings"

	"github.com/kong/go-kong/kong"

	"github.com/kongsync/kongsync/store"
)

// Typed annotation values as every family reads them: a bad value is a problem on the object
// and the annotation is ignored, keeping KIC's default.

func setBool(dst **bool, v *bool) {
	if v != nil {
		*dst = v
	}
}

func setInt(dst **int, v *int) {
	if v != nil {
		*dst = v
	}
}

// annotationParser reads typed annotation values of one object, reporting bad ones.
type annotationParser struct {
	t    *translation
	ref  store.Ref
	anns map[string]string
}

func (p annotationParser) bad(key, why string) {
	p.t.problem(p.ref, annotationField(key), "invalid value %s: %s; annotation ignored", quoteShort(p.anns[key]), why)
}

// boolean, integer and list return nil for an absent or empty annotation: an empty value means
// "not set", as it does for most of KIC's annotations.
func (p annotationParser) boolean(key string, parse func(string) (bool, error)) *bool {
	v := p.anns[key]
	if v == "" {
		return nil
	}
	b, err := parse(v)
	if err != nil {
		p.bad(key, err.Error())
		return nil
	}
	return kong.Bool(b)
}

func (p annotationParser) integer(key string, parse func(string) (int, error)) *int {
	v := p.anns[key]
	if v == "" {
		return nil
	}
	n, err := parse(v)
	if err != nil {
		p.bad(key, err.Error())
		return nil
	}
	return kong.Int(n)
}

func (p annotationParser) list(key string, parse func(string) ([]string, error)) []*string {
	v := p.anns[key]
	if v == "" {
		return nil
	}
	items, err := parse(v)
	if err != nil {
		p.bad(key, err.Error())
		return nil
	}
	if len(items) == 0 {
		return nil
	}
	return kong.StringSlice(items...)
}

// headers reads konghq.com/headers.<name> annotations into route header matches, and counts
// the Host ones it leaves out (KIC's expressions priority counts them).
func (p annotationParser) headers() (out map[string][]string, hosts int) {
	sep := ","
	if v, ok := p.anns[annHeadersSeparator]; ok {
		if v == "" {
			p.bad(annHeadersSeparator, "empty separator")
		} else {
			sep = v
		}
	}
	for k, v := range p.anns {
		name, ok := strings.CutPrefix(k, annHeadersPrefix)
		if !ok || v == "" {
			continue
		}
		if name == "" {
			p.bad(k, "no header name after konghq.com/headers.")
			continue
		}
		if strings.EqualFold(name, "host") {
			p.bad(k, "Kong matches the Host header with the route's hosts (use the rule host or konghq.com/host-aliases), and rejects it as a header")
			hosts++
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[name] = splitHeaderValues(v, sep)
	}
	return out, hosts
}

// hostAliases reads konghq.com/host-aliases: each alias once, and, when some were repeated,
// the list as written.
func (p annotationParser) hostAliases() ([]*string, []string) {
	v := p.anns[annHostAliases]
	if v == "" {
		return nil, nil
	}
	hs, err := parseHostAliases(v)
	if err != nil {
		p.bad(annHostAliases, err.Error())
		return nil, nil
	}
	var written []string
	if all := splitList(v); len(all) > len(hs) {
		written = all
	}
	return kong.StringSlice(hs...), written
}
