package readmodel

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// pageKeys reads the keys of a page — limit keys after skipping offset, after the
// cursor — by walking the branches and merging them newest first.
//
// The merge is lazy: each branch is read in chunks, the first ones together in one
// UNION ALL, and a branch is read further only while its next key could still be on
// the page, with chunks doubling. Usually the first chunk is a whole page per branch,
// so one query answers. For a word search that walks, every row a walk passes costs a
// probe and a match may take a hundred of them; reading a page from every branch would
// multiply that by the number of branches (three for a search over every status), so
// the first chunks are a share of the page and the merge reads about one page's worth
// of matches in all.
func (s *call) pageKeys(ctx context.Context, company int64, bs []branch, f filters, after *keyset, offset, limit int) ([]keyset, error) {
	if len(bs) == 0 {
		return nil, nil
	}
	want := offset + limit
	if len(bs) == 1 {
		keys, err := s.walk(ctx, company, bs, f, after, want)
		if err != nil {
			return nil, err
		}
		return keys[0][min(offset, len(keys[0])):], nil
	}
	type stream struct {
		buf  []keyset
		last *keyset // where the next chunk starts; nil: at the cursor
		size int     // the last chunk's size
		done bool    // the branch has nothing after buf
	}
	first := want
	if f.wordWalk {
		first = max(8, want/len(bs)+1)
	}
	chunks, err := s.walk(ctx, company, bs, f, after, first)
	if err != nil {
		return nil, err
	}
	streams := make([]stream, len(bs))
	for i, c := range chunks {
		streams[i] = stream{buf: c, size: first, done: len(c) < first}
		if len(c) > 0 {
			streams[i].last = &c[len(c)-1]
		}
	}
	out := make([]keyset, 0, want)
	for len(out) < want {
		best := -1
		for i := range streams {
			st := &streams[i]
			if len(st.buf) == 0 && !st.done {
				from := after
				if st.last != nil {
					from = st.last
				}
				st.size = min(2*st.size, 2000)
				more, err := s.walk(ctx, company, bs[i:i+1], f, from, st.size)
				if err != nil {
					return nil, err
				}
				st.buf, st.done = more[0], len(more[0]) < st.size
				if len(st.buf) > 0 {
					st.last = &st.buf[len(st.buf)-1]
				}
			}
			if len(st.buf) > 0 && (best < 0 || st.buf[0].compare(streams[best].buf[0]) > 0) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out = append(out, streams[best].buf[0])
		streams[best].buf = streams[best].buf[1:]
	}
	return out[min(offset, len(out)):], nil
}

// walk reads up to n keys of each branch after the cursor, newest first, in one
// query (a UNION ALL when there are several), and returns them per branch.
func (s *call) walk(ctx context.Context, company int64, bs []branch, f filters, after *keyset, n int) ([][]keyset, error) {
	query, list := s.walkSQL(company, bs, f, after, n)
	rs, err := s.query(ctx, query, list)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	out := make([][]keyset, len(bs))
	for rs.Next() {
		var i int
		var k keyset
		if err := rs.Scan(&i, &k.id, timeCol{&k.t}); err != nil {
			return nil, err
		}
		out[i] = append(out[i], k)
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	for _, keys := range out {
		// A parallel plan may interleave a branch's rows.
		slices.SortFunc(keys, func(x, y keyset) int { return y.compare(x) })
	}
	return out, nil
}

// walkSQL is the query of walk: per branch, its number b, then id and updated_at.
func (s *call) walkSQL(company int64, bs []branch, f filters, after *keyset, n int) (string, []any) {
	var a args
	c := a.add(company)
	extra := f.sql(&a, s.db.Dialect, f.loc)
	cond := "t.company_id = " + c + " AND t.deleted = FALSE"
	if extra != "" {
		cond += " AND " + extra
	}
	if after != nil {
		cond += " AND (t.updated_at, t.id) < (" + a.add(tsArg(s.db.Dialect, after.t)) + ", " + a.add(after.id) + ")"
	}
	lim := a.add(n)
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("SELECT * FROM (SELECT %d AS b, t.id, t.updated_at FROM tickets t WHERE %s AND %s"+
			" ORDER BY t.updated_at DESC, t.id DESC LIMIT %s) AS b%d", i, cond, b.where(&a), lim, i)
	}
	return strings.Join(parts, " UNION ALL "), a.list
}
