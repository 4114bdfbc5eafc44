// Package media stores message media on the local disk and serves it by signed URL.
// *Store implements engine.MediaStore.
//
// Layout: Config.Dir/<companyId>/<32 hex digits>.<ext>. Names are random and the
// extension is chosen from the sniffed content, never from what the sender declared.
// Every file operation goes through an os.Root opened on Config.Dir, so no name —
// whatever it holds ("..", symlinks, absolute paths) — reaches outside the folder.
//
// Save sniffs the first 512 bytes (net/http.DetectContentType plus magic numbers for
// the audio and video formats phones and browsers record: Ogg/Opus, MP3 without ID3,
// AAC, AMR, MP4/M4A/MOV/3GP and HEIC boxes, WebM) and:
//
//   - refuses executables (PE, ELF, Mach-O, Java classes, WebAssembly, scripts with
//     #!) and active content (HTML, XML, SVG, anything with script markup) with
//     ERR_MEDIA_TYPE_NOT_ALLOWED (415), and so a file whose declared name ends in an
//     extension Windows or a browser would run (.exe, .js, .html, .svg, .lnk …);
//   - refuses a file above its type's limit with ERR_MEDIA_TOO_LARGE (413);
//   - keeps nothing of a refused or failed file: bytes are written to a ".part" file
//     that is renamed into place only when complete (and synced).
//
// Serving: ServeHTTP answers GET and HEAD on <BaseURL>/<exp>.<sig>[.<name>]/<companyId>
// /<file> (the name base64url-encoded), so that a URL ends in its file's extension; the
// earlier form <BaseURL>/<companyId>/<file>?exp=<unix>&sig=<hmac>[&n=<name>] is still
// served. The signature (HMAC-SHA256 with Config.Secret over the path, the expiry and
// the name) is what authorises the request, so an <img src> or <audio src> works
// without an Authorization header. A bad or expired signature
// answers 403 ERR_NO_PERMISSION, a malformed path or a missing file 404. Answers carry
// X-Content-Type-Options: nosniff, a sandboxing Content-Security-Policy and a
// Content-Disposition: inline for images, audio and video, attachment for documents.
// Range requests work (video seeking), through http.ServeContent.
//
// A *Store is safe for concurrent use and starts no goroutines. Close it at shutdown.
package media
