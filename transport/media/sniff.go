package media

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"path"
	"strings"

	"atende/engine"
)

// sniffLen is how much of a file classification looks at (DetectContentType's window).
const sniffLen = 512

// kind is what a stored file is: its served content type, its media type and the
// extension it is stored under. Every extension Save produces is a key of kinds, so
// serving needs no sniffing: the extension says everything.
type kind struct {
	mime  string
	media string // engine.MediaImage, MediaAudio, MediaVideo, MediaDocument
	ext   string // with the dot
}

var kinds = map[string]kind{}

func init() {
	add := func(media string, pairs ...string) {
		for i := 0; i < len(pairs); i += 2 {
			kinds[pairs[i]] = kind{mime: pairs[i+1], media: media, ext: pairs[i]}
		}
	}
	add(engine.MediaImage,
		".jpg", "image/jpeg", ".png", "image/png", ".gif", "image/gif", ".webp", "image/webp",
		".bmp", "image/bmp", ".ico", "image/x-icon", ".heic", "image/heic", ".avif", "image/avif")
	add(engine.MediaAudio,
		".mp3", "audio/mpeg", ".ogg", "audio/ogg", ".m4a", "audio/mp4", ".weba", "audio/webm",
		".wav", "audio/wav", ".aac", "audio/aac", ".amr", "audio/amr", ".flac", "audio/flac",
		".aiff", "audio/aiff", ".mid", "audio/midi")
	add(engine.MediaVideo,
		".mp4", "video/mp4", ".webm", "video/webm", ".ogv", "video/ogg", ".mov", "video/quicktime",
		".3gp", "video/3gpp", ".avi", "video/x-msvideo", ".mkv", "video/x-matroska")
	add(engine.MediaDocument,
		".pdf", "application/pdf", ".txt", "text/plain; charset=utf-8", ".csv", "text/csv; charset=utf-8",
		".rtf", "application/rtf", ".ps", "application/postscript",
		".zip", "application/zip", ".gz", "application/gzip", ".rar", "application/vnd.rar",
		".7z", "application/x-7z-compressed", ".bin", "application/octet-stream",
		".docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
		".pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation",
		".odt", "application/vnd.oasis.opendocument.text",
		".ods", "application/vnd.oasis.opendocument.spreadsheet",
		".odp", "application/vnd.oasis.opendocument.presentation",
		".doc", "application/msword", ".xls", "application/vnd.ms-excel", ".ppt", "application/vnd.ms-powerpoint")
}

// Containers whose exact document type only the declared name tells apart; the
// content has been checked to be the container, so the name can only pick among
// harmless variants.
var (
	zipFamily  = []string{".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp"} // default .zip
	oleFamily  = []string{".doc", ".xls", ".ppt"}                            // default .bin
	textFamily = []string{".csv"}                                            // default .txt
)

// errNotAllowed is the refusal of content that must not be stored.
func errNotAllowed(why string) error {
	return engine.Wrap(engine.ErrMediaTypeNotAllowed, errString(why))
}

type errString string

func (e errString) Error() string { return string(e) }

// classify decides what head — the first bytes of a file, up to sniffLen — is.
// declaredType and declaredName only choose among variants of a container the
// content proves (audio or video in MP4/WebM, which document in a ZIP).
func classify(head []byte, declaredType, declaredName string) (kind, error) {
	if why := executable(head); why != "" {
		return kind{}, errNotAllowed(why)
	}
	audioHint := strings.HasPrefix(strings.ToLower(strings.TrimSpace(declaredType)), "audio/")
	nameExt := strings.ToLower(path.Ext(strings.ReplaceAll(declaredName, `\`, "/")))
	if nameExt == ".m4a" || nameExt == ".weba" || nameExt == ".opus" {
		audioHint = true
	}
	if ext := sniffMedia(head, audioHint); ext != "" {
		return kinds[ext], nil
	}
	ct := http.DetectContentType(head)
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	switch ct {
	case "image/jpeg":
		return kinds[".jpg"], nil
	case "image/png":
		return kinds[".png"], nil
	case "image/gif":
		return kinds[".gif"], nil
	case "image/webp":
		return kinds[".webp"], nil
	case "image/bmp":
		return kinds[".bmp"], nil
	case "image/x-icon":
		return kinds[".ico"], nil
	case "audio/mpeg":
		return kinds[".mp3"], nil
	case "audio/wave":
		return kinds[".wav"], nil
	case "audio/aiff":
		return kinds[".aiff"], nil
	case "audio/midi":
		return kinds[".mid"], nil
	case "video/avi":
		return kinds[".avi"], nil
	case "application/pdf":
		return kinds[".pdf"], nil
	case "application/postscript":
		return kinds[".ps"], nil
	case "application/zip":
		return kinds[pick(nameExt, zipFamily, ".zip")], nil
	case "application/x-gzip":
		return kinds[".gz"], nil
	case "application/x-rar-compressed":
		return kinds[".rar"], nil
	case "text/html":
		return kind{}, errNotAllowed("HTML content")
	case "text/xml":
		return kind{}, errNotAllowed("XML content (SVG and friends)")
	case "application/wasm":
		return kind{}, errNotAllowed("WebAssembly")
	case "text/plain":
		if markup(head) {
			return kind{}, errNotAllowed("text with markup")
		}
		return kinds[pick(nameExt, textFamily, ".txt")], nil
	}
	switch {
	case bytes.HasPrefix(head, []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")): // OLE2: .doc, .xls, .ppt, .msg, .msi
		return kinds[pick(nameExt, oleFamily, ".bin")], nil
	case bytes.HasPrefix(head, []byte(`{\rtf`)):
		return kinds[".rtf"], nil
	case bytes.HasPrefix(head, []byte("7z\xBC\xAF\x27\x1C")):
		return kinds[".7z"], nil
	}
	return kinds[".bin"], nil
}

// pick is ext if it is one of family, else def.
func pick(ext string, family []string, def string) string {
	for _, f := range family {
		if ext == f {
			return ext
		}
	}
	return def
}

// executable names the kind of program head starts, or "".
func executable(head []byte) string {
	sigs := []struct{ magic, what string }{
		{"MZ", "Windows/DOS executable"},
		{"\x7FELF", "ELF executable"},
		{"\xFE\xED\xFA\xCE", "Mach-O executable"},
		{"\xFE\xED\xFA\xCF", "Mach-O executable"},
		{"\xCE\xFA\xED\xFE", "Mach-O executable"},
		{"\xCF\xFA\xED\xFE", "Mach-O executable"},
		{"\xCA\xFE\xBA\xBE", "Java class or Mach-O universal binary"},
		{"\x00asm", "WebAssembly"},
		{"dex\n", "Android DEX"},
	}
	for _, s := range sigs {
		if bytes.HasPrefix(head, []byte(s.magic)) {
			return s.what
		}
	}
	if bytes.HasPrefix(head, []byte("#!")) && !bytes.HasPrefix(head, []byte("#!AMR")) {
		return "script with an interpreter line"
	}
	return ""
}

// markupWords are the openings that make text active in a browser or an XML viewer.
var markupWords = [][]byte{
	[]byte("<svg"), []byte("<html"), []byte("<script"), []byte("<!doctype"), []byte("<?xml"),
	[]byte("<iframe"), []byte("<body"), []byte("<head"), []byte("<object"), []byte("<embed"),
	[]byte("<xsl"), []byte("xmlns"),
}

// markup reports whether text holds markup a browser would act on, anywhere in head
// (UTF-16 text is looked at with its zero bytes dropped).
func markup(head []byte) bool {
	t := bytes.ToLower(bytes.ReplaceAll(head, []byte{0}, nil))
	for _, w := range markupWords {
		if bytes.Contains(t, w) {
			return true
		}
	}
	return false
}

// sniffMedia recognises the audio, video and image containers DetectContentType does
// not tell apart (or not at all), returning the extension to store them under.
func sniffMedia(h []byte, audioHint bool) string {
	switch {
	case bytes.HasPrefix(h, []byte("#!AMR")):
		return ".amr"
	case bytes.HasPrefix(h, []byte("OggS\x00")):
		if bytes.Contains(h, []byte("\x80theora")) {
			return ".ogv"
		}
		return ".ogg" // Opus (WhatsApp voice notes), Vorbis, Speex, FLAC
	case bytes.HasPrefix(h, []byte("fLaC")):
		return ".flac"
	case bytes.HasPrefix(h, []byte("\x1A\x45\xDF\xA3")): // EBML: WebM or Matroska
		if !bytes.Contains(h, []byte("webm")) {
			return ".mkv"
		}
		if audioHint {
			return ".weba" // MediaRecorder's audio/webm;codecs=opus
		}
		return ".webm"
	case len(h) >= 12 && string(h[4:8]) == "ftyp":
		return sniffISO(h, audioHint)
	case bytes.HasPrefix(h, []byte("ID3")):
		return ".mp3"
	case mpegAudioFrame(h):
		return ".mp3"
	case adtsFrame(h):
		return ".aac"
	}
	return ""
}

// sniffISO classifies an ISO base media file (MP4 family, HEIF) by its ftyp brands.
func sniffISO(h []byte, audioHint bool) string {
	size := int(binary.BigEndian.Uint32(h[:4]))
	if size < 16 || size > len(h) {
		size = min(len(h), 64)
	}
	major := string(h[8:12])
	brands := []string{major}
	for i := 16; i+4 <= size; i += 4 {
		brands = append(brands, string(h[i:i+4]))
	}
	for _, b := range brands {
		switch b {
		case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1":
			return ".heic"
		case "avif", "avis":
			return ".avif"
		}
	}
	switch {
	case major == "M4A " || major == "M4B " || major == "M4P " || major == "F4A ":
		return ".m4a"
	case major == "qt  ":
		return ".mov"
	case strings.HasPrefix(major, "3gp") || strings.HasPrefix(major, "3g2"):
		if audioHint {
			return ".m4a"
		}
		return ".3gp"
	}
	if audioHint {
		return ".m4a" // Safari's MediaRecorder: audio/mp4 with an isom/mp42 brand
	}
	return ".mp4"
}

// mpegAudioFrame reports whether h starts with an MPEG-1/2/2.5 Layer III frame header
// (an MP3 without an ID3 tag).
func mpegAudioFrame(h []byte) bool {
	if len(h) < 4 || h[0] != 0xFF || h[1]&0xE0 != 0xE0 {
		return false
	}
	version := (h[1] >> 3) & 3
	layer := (h[1] >> 1) & 3
	bitrate := h[2] >> 4
	rate := (h[2] >> 2) & 3
	return version != 1 && layer == 1 && bitrate != 0 && bitrate != 15 && rate != 3
}

// adtsFrame reports whether h starts with an AAC ADTS frame header.
func adtsFrame(h []byte) bool {
	if len(h) < 7 || h[0] != 0xFF || h[1]&0xF6 != 0xF0 {
		return false
	}
	rateIndex := (h[2] >> 2) & 0xF
	return rateIndex < 13
}
