package expr

// ReaderPathForTests makes every regular-expression match under a context
// that can be done take the interruptible reader path, whatever the
// length of its subject, until the returned function is called.
func ReaderPathForTests() (restore func()) {
	longSubject = 0
	return func() { longSubject = LongRegexSubject }
}
