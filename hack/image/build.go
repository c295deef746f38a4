package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// options describe one image build.
type options struct {
	Out        string
	ModuleDir  string // kongsync's module root, where ./cmd/kongsync is built from
	Binary     string // prebuilt binary; empty: go build ./cmd/kongsync
	Version    string
	Repository string
	Revision   string
	Arch       string
	CABundle   string
	Created    time.Time
}

// build compiles kongsync (unless a binary is given), assembles the image and writes the
// tarball; it returns the image's manifest digest.
func build(ctx context.Context, o options) (string, error) {
	bin := o.Binary
	if bin == "" {
		dir, err := os.MkdirTemp("", "kongsync-image-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "kongsync")
		if err := goBuild(ctx, o.ModuleDir, bin, o.Version, o.Arch); err != nil {
			return "", err
		}
	}
	binary, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	ca, err := os.ReadFile(o.CABundle)
	if err != nil {
		return "", fmt.Errorf("CA bundle: %w", err)
	}
	img, err := newImage(imageSpec{Binary: binary, CABundle: ca, Created: o.Created, Arch: o.Arch,
		Version: o.Version, Revision: o.Revision})
	if err != nil {
		return "", err
	}
	tag, err := name.NewTag(o.Repository + ":" + tagOf(o.Version))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(o.Out), 0o755); err != nil {
		return "", err
	}
	if err := tarball.WriteToFile(o.Out, tag, img); err != nil {
		return "", err
	}
	d, err := img.Digest()
	return d.String(), err
}

// goBuild builds the static binary: no cgo, no build paths, symbols stripped, the version in
// main.version; the commit comes from Go's own VCS stamping (`kongsync version` prints it).
func goBuild(ctx context.Context, dir, out, version, arch string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=auto",
		"-ldflags", "-s -w -X main.version="+version, "-o", out, "./cmd/kongsync")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	return nil
}

// tagOf turns a version into a valid image tag (git describe may give "+" in none, but a
// dirty or odd version must still tag): characters outside [A-Za-z0-9_.-] become "-".
func tagOf(version string) string {
	b := []byte(version)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) == 0 || b[0] == '.' || b[0] == '-' {
		b = append([]byte("v"), b...)
	}
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}
