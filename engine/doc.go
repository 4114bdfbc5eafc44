// Package engine is Atende's domain: the entities of the product brief, the ticket
// lifecycle as pure decide/evolve functions, validation rules, the error catalogue and
// the permission table, plus the interfaces (journal, stores, clock) that the outer
// layers implement.
//
// engine imports nothing of ours and does no I/O. Everything here is safe for
// concurrent use unless a type says otherwise: values are plain data, functions are
// pure. Actors host the aggregates; persistence stores them; transport speaks them.
package engine
