package diff

// For the external tests.
var (
	GeneratedClusters = generatedClusters
	CompareGenerated  = compareGenerated
)

var SecretFields = secretFields

// ValueIn is valueIn, for TestValueIn.
var ValueIn = valueIn

// SetBatch makes Run compare n targets at a time, until the function it
// returns is called.
func SetBatch(n int) (restore func()) {
	old := batchSize
	batchSize = func(int) int { return n }
	return func() { batchSize = old }
}
