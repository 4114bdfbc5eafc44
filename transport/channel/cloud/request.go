package cloud

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
)

// Multipart builds a multipart/form-data body of fields and one file part with the
// given Content-Disposition and Content-Type ("" = application/octet-stream), the file
// read up to limit bytes. It returns the body and its Content-Type.
func Multipart(fields map[string]string, disposition, fileType string, file io.Reader, limit int64) (*bytes.Buffer, string, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			return nil, "", err
		}
	}
	if fileType == "" {
		fileType = "application/octet-stream"
	}
	pw, err := mw.CreatePart(map[string][]string{"Content-Disposition": {disposition}, "Content-Type": {fileType}})
	if err != nil {
		return nil, "", err
	}
	if _, err := io.Copy(pw, io.LimitReader(file, limit)); err != nil {
		return nil, "", fmt.Errorf("read upload: %w", err)
	}
	if err := mw.Close(); err != nil {
		return nil, "", err
	}
	return &buf, mw.FormDataContentType(), nil
}

// LimitBody caps an answer's body at limit bytes; closing it closes body.
func LimitBody(body io.ReadCloser, limit int64) io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(body, limit), body}
}
