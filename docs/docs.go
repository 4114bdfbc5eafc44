// Package docs embeds the project's documentation (the *.md files of this directory)
// so that every server can serve it (transport/http, GET /docs/): the Support page
// links to it, and it works without internet.
package docs

import (
	"embed"
	"io/fs"
)

//go:embed *.md
var files embed.FS

// FS is the documentation: one Markdown file per topic, at its root.
func FS() fs.FS { return files }
