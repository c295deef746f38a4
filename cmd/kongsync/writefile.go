package main

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
)

// privateMode is the mode of a config file dump creates: it holds private keys and credentials.
const privateMode fs.FileMode = 0o600

// writePrivate writes body to path so that nobody but its owner can ever read it: into a
// temporary file created 0600 in the same directory, renamed over path once complete, so that
// there is no moment when path exists world-readable or half-written. A file already at path
// keeps its permissions if they are narrower (never widened; a 0644 left by an older kongsync
// becomes 0600). A path that is not a regular file (/dev/stdout, a FIFO) is written in place;
// a symbolic link is followed, so the file it names is replaced and the link stays.
func writePrivate(path string, body net.Buffers) error {
	target, mode, regular, err := outputTarget(path)
	if err != nil {
		return err
	}
	if !regular {
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		_, err = body.WriteTo(f)
		return errors.Join(err, f.Close())
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := body.WriteTo(tmp); err != nil {
		_ = tmp.Close()
		return err
	}
	err = errors.Join(tmp.Chmod(mode), tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	done = err == nil
	return err
}

// outputTarget resolves path (following symbolic links) and says with what mode to write it:
// privateMode for a new file, an existing regular file's permissions narrowed to privateMode.
func outputTarget(path string) (target string, mode fs.FileMode, regular bool, err error) {
	target = path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, privateMode, true, nil
	case err != nil:
		return "", 0, false, err
	case fi.IsDir():
		return "", 0, false, &fs.PathError{Op: "write", Path: path, Err: errors.New("is a directory")}
	}
	return target, fi.Mode().Perm() & privateMode, fi.Mode().IsRegular(), nil
}
