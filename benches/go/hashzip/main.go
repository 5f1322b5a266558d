// Go's side of issue 19's package hash benchmark: what Terraform does with
// a downloaded provider package, dirhash.HashZip (h1) and a SHA-256 of the
// file (zh, PackageHashLegacyZipSHA), then the time and the peak resident
// memory (VmHWM). Built by benches/package-hash.sh, not by cargo.
package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/dirhash"
)

func vmHWM() string {
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "?"
}

func main() {
	path := os.Args[1]
	start := time.Now()
	h1, err := dirhash.HashZip(path, dirhash.Hash1)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
	elapsed := time.Since(start)
	fmt.Printf("go\t%s\tzh:%x\t%.3f s\tVmHWM %s\n", h1, h.Sum(nil), elapsed.Seconds(), vmHWM())
}
