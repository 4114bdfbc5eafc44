package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"atende/engine"
)

// An archive is the encoded form of a compacted stream's events (compact_postgres.go):
// one value holding them all, so that the keys the JSON payloads repeat in every event
// are compressed together and the stream costs one row and one index entry instead of
// one of each an event.
//
// Layout: a format byte (archiveV1), then zstd of
//
//	uvarint count of distinct types, then each type as uvarint length + bytes
//	uvarint count of events, then for each event in version order:
//	  uvarint position − previous position (the first: − 0)
//	  uvarint version − previous version (the first: − 0)
//	  uvarint index of its type
//	  uvarint length + bytes of data
//	  uvarint length + bytes of metadata (0: none)
//	  varint recorded_at in microseconds − previous (the first: − 0)
//
// The stream id and the tenant are the row's columns, not repeated here.
const archiveV1 byte = 1

// maxArchiveEvents bounds the events an archive may claim, so a corrupt count cannot
// make the decoder allocate without limit.
const maxArchiveEvents = 1 << 20

var (
	zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(fmt.Sprintf("journal: zstd encoder: %v", err))
		}
		return e
	})
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		// The limit bounds what one corrupt archive can make the decoder allocate.
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(256<<20))
		if err != nil {
			panic(fmt.Sprintf("journal: zstd decoder: %v", err))
		}
		return d
	})
)

// errArchive reports an archive that does not decode: a corrupt row.
var errArchive = errors.New("journal: corrupt archive")

// encodeArchive encodes evs, one stream's events in version order with increasing
// positions.
func encodeArchive(evs []engine.RecordedEvent) []byte {
	types := map[string]uint64{}
	var order []string
	for _, e := range evs {
		if _, ok := types[e.Type]; !ok {
			types[e.Type] = uint64(len(order))
			order = append(order, e.Type)
		}
	}
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(order)))
	for _, t := range order {
		b = appendBytes(b, []byte(t))
	}
	b = binary.AppendUvarint(b, uint64(len(evs)))
	var pos, ver, at int64
	for _, e := range evs {
		b = binary.AppendUvarint(b, uint64(e.Position-pos))
		b = binary.AppendUvarint(b, uint64(e.Version-ver))
		b = binary.AppendUvarint(b, types[e.Type])
		b = appendBytes(b, e.Data)
		b = appendBytes(b, e.Metadata)
		micros := e.RecordedAt.UnixMicro()
		b = binary.AppendVarint(b, micros-at)
		pos, ver, at = e.Position, e.Version, micros
	}
	return zstdEncoder().EncodeAll(b, []byte{archiveV1})
}

func appendBytes(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

// decodeArchive decodes an archive of stream in company, appending its events to out.
// A value that is not a well-formed archive is an error, never a panic.
func decodeArchive(out []engine.RecordedEvent, stream string, company engine.ID, v []byte) ([]engine.RecordedEvent, error) {
	if len(v) == 0 || v[0] != archiveV1 {
		return out, fmt.Errorf("%w: stream %s: unknown format", errArchive, stream)
	}
	b, err := zstdDecoder().DecodeAll(v[1:], nil)
	if err != nil {
		return out, fmt.Errorf("%w: stream %s: %v", errArchive, stream, err)
	}
	r := archiveReader{b: b}
	nt := r.uvarint()
	if nt > uint64(len(b)) {
		return out, fmt.Errorf("%w: stream %s: %d types", errArchive, stream, nt)
	}
	types := make([]string, 0, nt)
	for range nt {
		types = append(types, string(r.bytes()))
	}
	n := r.uvarint()
	if n > maxArchiveEvents || n > uint64(len(b)) {
		return out, fmt.Errorf("%w: stream %s: %d events", errArchive, stream, n)
	}
	var pos, ver, at int64
	for range n {
		pos += int64(r.uvarint())
		ver += int64(r.uvarint())
		ti := r.uvarint()
		data := r.bytes()
		meta := r.bytes()
		at += r.varint()
		if r.err != nil {
			break
		}
		if ti >= uint64(len(types)) || pos <= 0 || ver <= 0 {
			return out, fmt.Errorf("%w: stream %s: bad event at version %d", errArchive, stream, ver)
		}
		e := engine.RecordedEvent{
			Position:   pos,
			StreamID:   stream,
			Version:    ver,
			Type:       types[ti],
			Data:       data,
			CompanyID:  company,
			RecordedAt: time.UnixMicro(at).UTC(),
		}
		if len(meta) > 0 {
			e.Metadata = meta
		}
		out = append(out, e)
	}
	if r.err != nil || r.off != len(b) {
		return out, fmt.Errorf("%w: stream %s: truncated or trailing bytes", errArchive, stream)
	}
	return out, nil
}

// archiveReader reads the uvarints and byte strings of a decompressed archive,
// remembering the first error instead of panicking on short input.
type archiveReader struct {
	b   []byte
	off int
	err error
}

func (r *archiveReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = errArchive
		return 0
	}
	r.off += n
	return v
}

func (r *archiveReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.err = errArchive
		return 0
	}
	r.off += n
	return v
}

// bytes returns the next length-prefixed string, sharing r's buffer (each DecodeAll
// allocates its own, so events keep it alive but never see it change).
func (r *archiveReader) bytes() []byte {
	l := r.uvarint()
	if r.err != nil {
		return nil
	}
	if l > uint64(len(r.b)-r.off) {
		r.err = errArchive
		return nil
	}
	v := r.b[r.off : r.off+int(l) : r.off+int(l)]
	r.off += int(l)
	return v
}
