package media_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"atende/transport/media"
)

func ExampleStore() {
	dir, _ := os.MkdirTemp("", "media")
	defer os.RemoveAll(dir)
	store, err := media.New(media.Config{Dir: dir, Secret: bytes.Repeat([]byte("k"), 32)})
	if err != nil {
		panic(err)
	}
	defer store.Close()

	// The declared type says image/png; the content is a PDF, and that is what counts.
	pdf := strings.NewReader("%PDF-1.7\n1 0 obj << >> endobj\n")
	f, err := store.Save(context.Background(), 42, pdf, "orçamento.pdf", "image/png")
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Type, f.MIME, f.Name, f.Size)

	u, _ := store.NamedURL(42, f.Path, f.Name, 10*time.Minute)
	// /media/<expiry>.<signature>.<name>/42/<file>.pdf: the grant is a path segment, so
	// the URL ends in the file's extension.
	fmt.Println(strings.HasPrefix(u, "/media/"), strings.HasSuffix(u, ".pdf"), strings.Contains(u, "/42/"))
	// Output:
	// document application/pdf orçamento.pdf 30
	// true true true
}
