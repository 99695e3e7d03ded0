package diff

// For the external tests.
var (
	GeneratedClusters = generatedClusters
	CompareGenerated  = compareGenerated
)

var SecretFields = secretFields

// ValueIn is valueIn, for TestValueIn.
var ValueIn = valueIn
