package web

import (
	"embed"
	"io/fs"
)

// Dist is the embedded build output, rooted at "dist".
//
//go:embed all:dist
var Dist embed.FS

// FS is the build output with "dist/" stripped: index.html and assets/ at its root.
func FS() fs.FS {
	sub, err := fs.Sub(Dist, "dist")
	if err != nil {
		// fs.Sub only fails on an invalid path; "dist" is valid.
		panic(err)
	}
	return sub
}
