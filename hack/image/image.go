package main

import (
	"archive/tar"
	"bytes"
	"io"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// nonroot is distroless's unprivileged user and group id; deploy/deployment.yaml runs the
// container as the same.
const nonroot = 65532

// imageSpec is everything the image is made of; the same spec gives the same digest.
type imageSpec struct {
	Binary, CABundle  []byte
	Created           time.Time
	Arch              string
	Version, Revision string
}

// file is one entry of the image's only layer.
type file struct {
	path     string
	mode     int64
	uid, gid int
	dir      bool
	data     []byte
}

// rootfs lists the layer's entries: the binary at /kongsync, the user database, the CA bundle
// where Go's crypto/x509 looks first on Linux, and writable /tmp and home directories.
func rootfs(s imageSpec) []file {
	return []file{
		{path: "etc/", mode: 0o755, dir: true},
		{path: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{path: "etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{path: "etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{path: "etc/ssl/", mode: 0o755, dir: true},
		{path: "etc/ssl/certs/", mode: 0o755, dir: true},
		{path: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: s.CABundle},
		{path: "home/", mode: 0o755, dir: true},
		{path: "home/nonroot/", mode: 0o700, uid: nonroot, gid: nonroot, dir: true},
		{path: "kongsync", mode: 0o755, data: s.Binary},
		{path: "root/", mode: 0o700, dir: true},
		{path: "tmp/", mode: 0o1777, dir: true},
	}
}

// layerTar writes the entries in path order with every time set to the source date, so the
// layer's bytes depend on the spec only.
func layerTar(s imageSpec) ([]byte, error) {
	files := rootfs(s)
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.path, Mode: f.mode, Uid: f.uid, Gid: f.gid, ModTime: s.Created,
			Typeflag: tar.TypeReg, Size: int64(len(f.data)), Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// newImage assembles the image: one layer, no history beyond it, the config of a
// distroless static image (nonroot user, the binary as entrypoint, no shell to fall back to).
func newImage(s imageSpec) (v1.Image, error) {
	raw, err := layerTar(s)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	})
	if err != nil {
		return nil, err
	}
	// Docker's media types (empty.Image's): a docker-save tarball keeps no manifest, and
	// loaders (crane, ggcr's tarball) rebuild it with these, so the digest printed here is the
	// one a push of the tarball gives.
	img, err := mutate.Append(empty.Image, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: s.Created}, CreatedBy: "hack/image: kongsync " + s.Version,
		Comment: "static kongsync, passwd/group (nonroot 65532), CA bundle",
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", s.Arch, v1.Time{Time: s.Created}
	cf.Config = v1.Config{
		User:       "65532:65532",
		Entrypoint: []string{"/kongsync"},
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "kongsync",
			"org.opencontainers.image.source":   "https://github.com/kongsync/kongsync",
			"org.opencontainers.image.version":  s.Version,
			"org.opencontainers.image.revision": s.Revision,
			"org.opencontainers.image.created":  s.Created.Format(time.RFC3339),
		},
	}
	return mutate.ConfigFile(img, cf)
}
