// Package web holds the built React app (Vite output in dist/) for the Go binary to
// serve. dist/.keep is committed so the package compiles before any `npm run build`;
// everything Vite writes beside it is build output, not source. The sources live in
// src/ (see README.md); the Go side only reads FS().
package web
