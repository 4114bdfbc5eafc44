// Package groups keeps the /Groups batches (tables group_batches and group_items)
// and creates their WhatsApp groups one by one in a durable job (docs/groups.md).
//
// A batch and one row per group are written in one transaction; the job
// (groups.create, River queue "groups", worked by the node's one River client of
// package jobs, through Store.Kinds) takes the first pending group, records the
// intent (attempts + 1), asks the connection's actor to create it
// (engine.GroupMaker) and records the outcome on the row only while it is still
// pending. A create that may have reached WhatsApp before a crash is retried with
// the same create key and Resume set, so the channel looks for the group before
// creating one: a batch never makes a group twice. Join counts /groupjoin visitors with a conditional UPDATE under each
// group's room.
//
// Store is safe for concurrent use. On SQLite every read inside a transaction goes
// through that transaction (db.Querier), never through the pool.
package groups
