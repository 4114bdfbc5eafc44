package actors

// recent is a map that forgets what was not used for a while, so that a connection
// actor's memory of its customers (contacts, numbers, tickets, openings) is bounded by
// the customers active lately, not by every customer the connection ever saw.
// Entries live in a young generation; when it holds max entries, the old generation
// is dropped and the young one becomes old. Reading an entry of the old generation
// moves it back to the young one, so an entry used at least once per max new entries
// stays. It holds between max and 2×max entries once full.
//
// What is forgotten is learned again, off the actor, the next time it is needed: a
// number the actor does not know is resolved as a newcomer's, a contact's current
// ticket is read from the guard, a recipient's number from the contact store, and a
// ticket's opening time is unknown (so a message to it is checked against the durable
// record before it is stored).
type recent[K comparable, V any] struct {
	young, old map[K]V
	max        int
}

func newRecent[K comparable, V any](max int) *recent[K, V] {
	return &recent[K, V]{young: map[K]V{}, old: map[K]V{}, max: max}
}

// get returns k's value, and whether it is known.
func (r *recent[K, V]) get(k K) (V, bool) {
	if v, ok := r.young[k]; ok {
		return v, true
	}
	v, ok := r.old[k]
	if ok {
		delete(r.old, k)
		r.set(k, v)
	}
	return v, ok
}

// at is k's value, the zero value when unknown.
func (r *recent[K, V]) at(k K) V {
	v, _ := r.get(k)
	return v
}

// has reports whether k is known (without moving it).
func (r *recent[K, V]) has(k K) bool {
	if _, ok := r.young[k]; ok {
		return true
	}
	_, ok := r.old[k]
	return ok
}

func (r *recent[K, V]) set(k K, v V) {
	delete(r.old, k)
	if _, ok := r.young[k]; !ok && len(r.young) >= r.max {
		r.old, r.young = r.young, make(map[K]V, r.max)
	}
	r.young[k] = v
}

// len is how many entries it holds.
func (r *recent[K, V]) len() int { return len(r.young) + len(r.old) }

// defaultCustomersKept is ConnectionConfig.CustomersKept's default: a connection
// remembers 50,000–100,000 customers, a few megabytes.
const defaultCustomersKept = 50_000
