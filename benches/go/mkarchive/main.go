// Writes a provider-like package archive with Go's archive/zip, as provider
// releases are written: entries streamed with data descriptors; one large
// binary-like executable (deflated), a stored blob, and thousands of small
// text files (deflated). Deterministic: the same bytes on every machine.
//
//	mkarchive OUT.zip [BINARY_MIB]
package main

import (
	"archive/zip"
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"time"
)

// binaryish writes n bytes that deflate about as well as a Go binary (a
// third random bytes, the rest runs of recurring words and zeros).
func binaryish(w *bufio.Writer, r *rand.Rand, n int) {
	words := [][]byte{[]byte("runtime."), []byte("github.com/hashicorp/terraform-plugin-framework/"),
		[]byte("\x00\x00\x00\x00\x00\x00\x00\x00"), []byte("\x48\x8b\x44\x24\x08"), []byte("type..eq."),
		[]byte("internal/"), []byte("\xe8\x00\x00\x00\x00"), []byte("google.golang.org/protobuf/")}
	buf := make([]byte, 0, 1<<16)
	for written := 0; written < n; {
		buf = buf[:0]
		for len(buf) < cap(buf)-64 {
			switch v := r.Intn(8); {
			case v < 3:
				for i := r.Intn(24); i >= 0; i-- {
					buf = append(buf, byte(r.Intn(256)))
				}
			default:
				buf = append(buf, words[r.Intn(len(words))]...)
			}
		}
		if written+len(buf) > n {
			buf = buf[:n-written]
		}
		w.Write(buf)
		written += len(buf)
	}
}

func main() {
	out := os.Args[1]
	binaryMiB := 300
	if len(os.Args) > 2 {
		binaryMiB, _ = strconv.Atoi(os.Args[2])
	}
	f, err := os.Create(out)
	if err != nil {
		panic(err)
	}
	fw := bufio.NewWriterSize(f, 1<<20)
	z := zip.NewWriter(fw)
	r := rand.New(rand.NewSource(19))
	mod := time.Date(2025, 10, 27, 12, 0, 0, 0, time.UTC)
	add := func(name string, method uint16, write func(w *bufio.Writer)) {
		h := &zip.FileHeader{Name: name, Method: method, Modified: mod}
		h.SetMode(0o644)
		e, err := z.CreateHeader(h)
		if err != nil {
			panic(err)
		}
		bw := bufio.NewWriterSize(e, 1<<16)
		write(bw)
		bw.Flush()
	}
	add("terraform-provider-bench_v1.0.0_x5", zip.Deflate, func(w *bufio.Writer) { binaryish(w, r, binaryMiB<<20) })
	add("assets/blob.bin", zip.Store, func(w *bufio.Writer) { binaryish(w, r, 8<<20) })
	for i := 0; i < 3000; i++ {
		add(fmt.Sprintf("docs/resources/resource_%04d.md", i), zip.Deflate, func(w *bufio.Writer) {
			for j := 0; j < 20+r.Intn(60); j++ {
				fmt.Fprintf(w, "- `argument_%d` (String) The %d-th argument of resource %d.\n", j, j, i)
			}
		})
	}
	add("LICENSE", zip.Deflate, func(w *bufio.Writer) {
		for i := 0; i < 400; i++ {
			w.WriteString("Mozilla Public License Version 2.0 ==================================\n")
		}
	})
	add("CHANGELOG.md", zip.Deflate, func(w *bufio.Writer) {
		for i := 0; i < 2000; i++ {
			fmt.Fprintf(w, "## 1.%d.0\n\n* resource: fixed issue %d\n\n", i, i*7)
		}
	})
	if err := z.Close(); err != nil {
		panic(err)
	}
	if err := fw.Flush(); err != nil {
		panic(err)
	}
	f.Close()
}
