package store

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ReadPaths decodes every manifest under paths: files, directories (recursively, *.yaml, *.yml,
// *.json, in lexical order) and "-" for stdin. Undecodable documents become notes; each reason
// the API server would refuse an object is a Refusal (manifests never met an API server; see
// check), the object still returned; the error is for paths that cannot be read at all.
func ReadPaths(paths []string, stdin io.Reader) ([]Object, []Refusal, []Note, error) {
	return ReadPathsChecked(paths, stdin, true)
}

// ReadPathsChecked is ReadPaths with the API server's checks on or off (off: no refusals, as for
// fixtures that never had to pass an API server).
func ReadPathsChecked(paths []string, stdin io.Reader, checked bool) ([]Object, []Refusal, []Note, error) {
	var objs []Object
	var refused []Refusal
	var notes []Note
	for _, p := range paths {
		files, err := expand(p)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, f := range files {
			o, r, n, err := readOne(f, stdin, checked)
			if err != nil {
				return nil, nil, nil, err
			}
			objs, refused, notes = append(objs, o...), append(refused, r...), append(notes, n...)
		}
	}
	return objs, refused, notes, nil
}

func readOne(name string, stdin io.Reader, checked bool) ([]Object, []Refusal, []Note, error) {
	if name == "-" {
		return decodeManifests("-", stdin, checked)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	return decodeManifests(name, f, checked)
}

// expand turns one -f argument into the files it names.
func expand(p string) ([]string, error) {
	if p == "-" {
		return []string{p}, nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read directory %s: %w", p, err)
	}
	sort.Strings(files)
	return files, nil
}

// Load fills a new store with objs. When two objects share a ref, the later one wins and a note
// says so, since manifests that define one object twice are usually a mistake.
func Load(objs []Object) (*Store, []Note) {
	s := New()
	seen := make(map[Ref]bool, len(objs))
	var notes []Note
	for _, o := range objs {
		ref, err := RefOf(o)
		if err != nil {
			notes = append(notes, Note{Err: true, Msg: err.Error()})
			continue
		}
		if seen[ref] {
			notes = append(notes, Note{Source: ref.String(), Msg: "defined more than once; the last definition wins"})
		}
		seen[ref] = true
		if _, err := s.Upsert(o); err != nil {
			notes = append(notes, Note{Err: true, Msg: err.Error()})
		}
	}
	return s, notes
}
