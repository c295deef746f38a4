package store

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// ReadPaths decodes every manifest under paths: files, directories (recursively, *.yaml, *.yml,
// *.json, in lexical order) and "-" for stdin. Undecodable documents become notes; each reason
// the API server would refuse an object is a Refusal (manifests never met an API server; see
// check), the object still returned; input past MaxInputBytes in all is not read (an error note
// for each source it cuts short); the error is for paths that cannot be read at all.
func ReadPaths(paths []string, stdin io.Reader) ([]Object, []Refusal, []Note, error) {
	return ReadPathsChecked(paths, stdin, true)
}

// ReadPathsChecked is ReadPaths with the API server's checks on or off (off: no refusals, as for
// fixtures that never had to pass an API server).
func ReadPathsChecked(paths []string, stdin io.Reader, checked bool) ([]Object, []Refusal, []Note, error) {
	return readPaths(paths, stdin, checked, defaultReadLimits())
}

func readPaths(paths []string, stdin io.Reader, checked bool, lim readLimits) ([]Object, []Refusal, []Note, error) {
	m := newManifestReader(lim, checked)
	var objs []Object
	var refused []Refusal
	var notes []Note
	for _, p := range paths {
		entries, err := expand(p)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, e := range entries {
			o, r, n, err := m.readOne(e, stdin)
			if err != nil {
				return nil, nil, nil, err
			}
			objs, refused, notes = append(objs, o...), append(refused, r...), append(notes, n...)
		}
	}
	return objs, refused, notes, nil
}

// pathEntry is one file to read: named on the command line (read whatever it is: a pipe given
// as /dev/fd/N is meant to be read) or found in a directory (read only if a regular file).
type pathEntry struct {
	name    string
	fromDir bool
}

func (m *manifestReader) readOne(e pathEntry, stdin io.Reader) ([]Object, []Refusal, []Note, error) {
	if e.name == "-" && !e.fromDir {
		return m.decode("-", stdin)
	}
	f, note, err := openManifest(e)
	if err != nil || note != nil {
		return nil, nil, nonNil(note), err
	}
	defer f.Close()
	return m.decode(e.name, f)
}

func nonNil(n *Note) []Note {
	if n == nil {
		return nil
	}
	return []Note{*n}
}

// openManifest opens a file. One found in a directory must be a regular file, or a symlink to
// one: anything else is noted and skipped without being opened (opening a FIFO waits for a
// writer; a device may do anything), and, as the file may change between the check and the
// open, it is opened without waiting (O_NONBLOCK) and checked again on the open descriptor.
func openManifest(e pathEntry) (*os.File, *Note, error) {
	if !e.fromDir {
		f, err := os.Open(e.name)
		return f, nil, err
	}
	st, err := os.Stat(e.name) // follows a symlink: its target must be a regular file
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, skippedFile(e.name, st.Mode()), nil
	}
	f, err := os.OpenFile(e.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		return nil, skippedFile(e.name, st.Mode()), nil
	}
	return f, nil, nil
}

func skippedFile(name string, mode fs.FileMode) *Note {
	what := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	case mode.IsDir():
		what = "a directory"
	}
	return &Note{Source: name, Err: true, Msg: what + ", not a regular file; skipped (a directory's manifests must be regular files; name it with -f to read it)"}
}

// expand turns one -f argument into the files it names.
func expand(p string) ([]pathEntry, error) {
	if p == "-" {
		return []pathEntry{{name: p}}, nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []pathEntry{{name: p}}, nil
	}
	var files []pathEntry
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			files = append(files, pathEntry{name: path, fromDir: true})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read directory %s: %w", p, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
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
