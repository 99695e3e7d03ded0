package render

// SetForgetEvery sets how many renderings renderEach makes between two
// calls of the file index's Forget, until the returned function restores it.
func SetForgetEvery(n int) (restore func()) {
	old := forgetEvery
	forgetEvery = n
	return func() { forgetEvery = old }
}
