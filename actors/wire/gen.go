// Package wire holds the protobuf messages actors exchange across nodes.
package wire

//go:generate protoc --go_out=. --go_opt=paths=source_relative wire.proto
