package readmodel_test

import (
	"atende/persistence/db"
	"context"
	"os"
	"testing"
	"time"
)

func TestDevSeed(t *testing.T) {
	url := os.Getenv("B6DEV")
	if url == "" {
		t.Skip()
	}
	d, err := db.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := b6ScaleFromEnv()
	t0 := time.Now()
	if err := b6Seed(context.Background(), d, s, t.Logf); err != nil {
		t.Fatal(err)
	}
	t.Log("seeded", s.name, time.Since(t0))
}

func BenchmarkDevB6(b *testing.B) {
	url := os.Getenv("B6DEV")
	if url == "" {
		b.Skip()
	}
	d, err := db.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	b6Run(b, d, b6ScaleFromEnv())
}
