package canopy

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
)

// Iter walks every item of a list, fetching pages as needed: it follows meta.next_cursor (and,
// from a server without cursors, page numbers). A page may hold no items while meta.has_more is
// true (a projects list filtered by Intersects tests a bounded number of candidates per request):
// Next goes on to the following page until the list ends.
//
//	it := client.Projects.ListAll(ctx, &canopy.ProjectListParams{})
//	for it.Next() {
//		p := it.Current()
//	}
//	if err := it.Err(); err != nil { ... }
type Iter[T any] struct {
	ctx   context.Context
	fetch func(ctx context.Context, query url.Values) (*List[T], error)
	query url.Values
	page  []T
	index int
	cur   T
	err   error
	done  bool
	pages int
	meta  *ListMeta
}

func newIter[T any](ctx context.Context, query url.Values, fetch func(ctx context.Context, query url.Values) (*List[T], error)) *Iter[T] {
	if ctx == nil {
		ctx = context.Background()
	}
	return &Iter[T]{ctx: ctx, fetch: fetch, query: query}
}

// failedIter is an iterator that yields nothing and reports err (params that cannot be encoded).
func failedIter[T any](err error) *Iter[T] {
	return &Iter[T]{ctx: context.Background(), err: err, done: true}
}

// Next advances to the next item, fetching the next page when the current one is used up. It
// returns false at the end of the list or on an error (see Err).
func (it *Iter[T]) Next() bool {
	for {
		if it.err != nil {
			return false
		}
		if it.index < len(it.page) {
			it.cur = it.page[it.index]
			it.index++
			return true
		}
		if it.done {
			return false
		}
		if it.pages > 0 && !it.advance() {
			it.done = true
			return false
		}
		list, err := it.fetch(it.ctx, it.query)
		if err != nil {
			it.err = err
			return false
		}
		it.pages++
		it.meta = &list.Meta
		it.page = list.Data
		it.index = 0
		// An empty page ends the list only when the server says so: advance (above, on the next
		// turn) follows next_cursor whenever there is one, and stops otherwise.
	}
}

// advance sets the query for the page after the one just read; false when there is none.
func (it *Iter[T]) advance() bool {
	m := it.meta
	if m == nil {
		return false
	}
	q := url.Values{}
	for k, v := range it.query {
		q[k] = v
	}
	if m.NextCursor != nil && *m.NextCursor != "" {
		if it.query.Get("cursor") == *m.NextCursor {
			// the same cursor again would fetch the same page forever
			it.err = fmt.Errorf("canopy: the server returned the cursor it was asked for (%q); stopping", *m.NextCursor)
			return false
		}
		q.Del("page")
		q.Set("cursor", *m.NextCursor)
		it.query = q
		return true
	}
	if m.NextCursor == nil && !m.HasMore && m.Page != nil && *m.Page < m.TotalPages {
		q.Del("cursor")
		q.Set("page", strconv.Itoa(*m.Page+1))
		it.query = q
		return true
	}
	return false
}

// Current is the item Next moved to.
func (it *Iter[T]) Current() T { return it.cur }

// Err is the error that stopped the iteration, nil at a normal end.
func (it *Iter[T]) Err() error { return it.err }

// Meta is the meta object of the page last fetched (nil before the first).
func (it *Iter[T]) Meta() *ListMeta { return it.meta }

// PagesFetched is how many pages have been requested so far.
func (it *Iter[T]) PagesFetched() int { return it.pages }

// Collect reads the rest of the list into a slice.
func (it *Iter[T]) Collect() ([]T, error) {
	var out []T
	for it.Next() {
		out = append(out, it.Current())
	}
	return out, it.Err()
}
