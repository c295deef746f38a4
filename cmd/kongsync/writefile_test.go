package main

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// writePrivate: a new file is 0600 whatever the umask; an existing file is never widened (0644
// from an older kongsync narrows to 0600, 0400 stays 0400); a symbolic link is followed and
// kept; a device is written in place; a directory is refused; no temporary file is left.
func TestWritePrivate(t *testing.T) {
	dir := t.TempDir()
	body := []byte("key: PRIVATE\n")
	tests := []struct {
		name    string
		setup   func(path string) string // returns the path given to writePrivate
		want    fs.FileMode
		wantErr bool
	}{
		{"new file", func(p string) string { return p }, 0o600, false},
		{"existing 0644", func(p string) string { mustWrite(t, p, 0o644); return p }, 0o600, false},
		{"existing 0666", func(p string) string { mustWrite(t, p, 0o666); return p }, 0o600, false},
		{"existing 0640", func(p string) string { mustWrite(t, p, 0o640); return p }, 0o600, false},
		{"existing 0400", func(p string) string { mustWrite(t, p, 0o400); return p }, 0o400, false},
		{"existing 0200", func(p string) string { mustWrite(t, p, 0o200); return p }, 0o200, false},
		{"symlink to a file", func(p string) string {
			mustWrite(t, p, 0o644)
			link := p + ".link"
			if err := os.Symlink(filepath.Base(p), link); err != nil {
				t.Fatal(err)
			}
			return link
		}, 0o600, false},
		{"directory", func(p string) string {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := filepath.Join(dir, filepath.Base(t.Name()))
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(sub, "kong.yaml")
			given := tt.setup(target)
			err := writePrivate(given, net.Buffers{body})
			if tt.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(target)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != tt.want {
				t.Errorf("mode %v, want %v", fi.Mode(), tt.want)
			}
			if tt.want&0o400 != 0 {
				if got, _ := os.ReadFile(target); string(got) != string(body) {
					t.Errorf("content %q", got)
				}
			}
			if li, err := os.Lstat(given); err != nil || given != target && li.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the link given was replaced: %v %v", li.Mode(), err)
			}
			entries, _ := os.ReadDir(sub)
			for _, e := range entries {
				if e.Name() != "kong.yaml" && e.Name() != "kong.yaml.link" {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
	if err := writePrivate(os.DevNull, net.Buffers{body}); err != nil {
		t.Errorf("a device is written in place: %v", err)
	}
	if fi, _ := os.Stat(os.DevNull); fi.Mode().Perm()&0o006 == 0 {
		t.Errorf("%s lost its mode: %v", os.DevNull, fi.Mode())
	}
}

func mustWrite(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte("old contents"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}
