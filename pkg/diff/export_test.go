package diff

// For the external tests.
var (
	GeneratedClusters = generatedClusters
	CompareGenerated  = compareGenerated
)

var SecretFields = secretFields
