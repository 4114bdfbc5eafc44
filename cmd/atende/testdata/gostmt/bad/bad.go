package bad

// Start breaks the rule: a bare go statement in production code.
func Start(fn func()) {
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	<-done
}
