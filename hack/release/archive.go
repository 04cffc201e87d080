package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// docFiles go into every archive beside the binary when the repository has
// them, as goreleaser's default archive files do.
var docFiles = []string{"LICENSE", "README.md"}

// member is one file of an archive.
type member struct {
	name string // in the archive, at its root
	path string // on disk
	mode os.FileMode
}

// members are t's binary and the repository's doc files, sorted by name.
func members(c config, t target) ([]member, error) {
	ms := []member{{name: t.file(), path: filepath.Join(c.dist, t.dir(), t.file()), mode: 0o755}}
	for _, f := range docFiles {
		p := filepath.Join(c.repo, f)
		if _, err := os.Stat(p); err == nil {
			ms = append(ms, member{name: f, path: p, mode: 0o644})
		} else if !os.IsNotExist(err) {
			return nil, err
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].name < ms[j].name })
	return ms, nil
}

// writeArchive writes t's archive into dist. The same files give the same
// bytes: sorted entries, one fixed time, root-owned, fixed modes, and a
// gzip header without name or time.
func writeArchive(c config, t target) (string, error) {
	ms, err := members(c, t)
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.dist, t.archive(c.version))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if strings.HasSuffix(path, ".zip") {
		err = writeZip(f, ms, c.modTime)
	} else {
		err = writeTarGz(f, ms, c.modTime)
	}
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, f.Close()
}

func writeTarGz(w io.Writer, ms []member, modTime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, m := range ms {
		data, err := os.ReadFile(m.path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: m.name, Size: int64(len(data)), Mode: int64(m.mode),
			ModTime: modTime, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, ms []member, modTime time.Time) error {
	zw := zip.NewWriter(w)
	for _, m := range ms {
		data, err := os.ReadFile(m.path)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: modTime}
		hdr.SetMode(m.mode)
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeChecksums writes sha256sum's format (`<hex>  <name>`), sorted by
// name, and returns the sums by archive name.
func writeChecksums(path string, archives []string) (map[string]string, error) {
	sort.Strings(archives)
	sums := map[string]string{}
	var b strings.Builder
	for _, a := range archives {
		sum, err := sha256File(a)
		if err != nil {
			return nil, err
		}
		sums[filepath.Base(a)] = sum
		fmt.Fprintf(&b, "%s  %s\n", sum, filepath.Base(a))
	}
	return sums, os.WriteFile(path, []byte(b.String()), 0o644)
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
