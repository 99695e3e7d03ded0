package migrate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Placeholder and PlaceholderName stand for a backend setting the
// repository cannot know and no setting gave: the store is still valid
// against the CRD, and the report names every one. Object names and keys
// must be DNS names, hence the lower-case form there.
const (
	Placeholder     = "REPLACE-ME"
	PlaceholderName = "replace-me"
)

// Settings are the backend settings the stores need, by name (see
// SettingNames): flags and repotool.yaml's migrate.kesToEso.
type Settings map[string]string

// SettingNames are the settings repotool knows, with what each is.
var SettingNames = map[string]string{
	"aws.region":       "AWS region, for objects that set none (KES: AWS_REGION of its deployment)",
	"aws.role":         "IAM role to assume, for objects that set no roleArn (KES: AWS_DEFAULT_ROLE_ARN ... none by default)",
	"vault.server":     "Vault address (KES: VAULT_ADDR)",
	"vault.mountPath":  "Kubernetes auth mount path, for objects that set no vaultMountPoint (KES: DEFAULT_VAULT_MOUNT_POINT)",
	"vault.role":       "Vault role, for objects that set no vaultRole (KES: DEFAULT_VAULT_ROLE)",
	"azure.authType":   "ServicePrincipal, ManagedIdentity or WorkloadIdentity (KES: AZURE_* credentials of its deployment)",
	"azure.tenantId":   "Azure tenant ID (KES: AZURE_TENANT_ID)",
	"gcp.projectId":    "GCP project, for objects that set no projectId (KES: the service account's project)",
	"alibaba.region":   "Alibaba Cloud region ID (KES: ALICLOUD_ENDPOINT's region)",
	"ibm.serviceUrl":   "IBM Cloud Secrets Manager instance URL (KES: IBM_CLOUD_SECRETS_MANAGER_API_ENDPOINT)",
	"akeyless.gateway": "Akeyless gateway API URL (KES: AKEYLESS_API_ENDPOINT, default https://api.akeyless.io)",
}

// Check reports the first setting that is not known.
func (s Settings) Check() error {
	for _, k := range sortedKeys(s) {
		if _, ok := SettingNames[k]; !ok {
			return fmt.Errorf("unknown setting %q: use one of %s", k, strings.Join(sortedKeys(SettingNames), ", "))
		}
	}
	if v := s["azure.authType"]; v != "" && !slices.Contains([]string{"ServicePrincipal", "ManagedIdentity", "WorkloadIdentity"}, v) {
		return fmt.Errorf("azure.authType %q: use ServicePrincipal, ManagedIdentity or WorkloadIdentity", v)
	}
	return nil
}

// store is a SecretStore (or ClusterSecretStore) the converted objects
// need.
type store struct {
	kind, name string
	namespace  *yaml.Node
	backend    string
	provider   *yaml.Node
	controller *yaml.Node // ESO's controller class, from KES's controllerId
	tokens     *tokens    // the template actions its values hold, in a chart template
	// todo are what the user must fill in or check by hand.
	todo []string
}

// storeFor is the store an object reads from: its backend with the
// object's settings (region, role, vault, project) and the user's.
func storeFor(o *kesObject, opts convertOptions) (store, error) {
	st := store{kind: opts.storeKind, namespace: clone(o.namespace)}
	if st.kind == "ClusterSecretStore" {
		st.namespace = nil
	}
	provider, ok := providers[o.spec.backendType]
	if !ok {
		return st, refuse(o.spec.backendTypeNode, "backendType %q is not one KES documents (%s)", o.spec.backendType, strings.Join(sortedKeys(providers), ", "))
	}
	b := &storeBuilder{st: &st, settings: opts.settings}
	key, spec, err := provider(b, o, opts)
	if err != nil {
		return st, err
	}
	st.provider = mapping()
	set(st.provider, key, spec)
	if o.spec.controllerID != nil {
		// KES's controller instance: ESO's controller class, on the store.
		st.controller = clone(o.spec.controllerID)
	}
	// A name that says the backend, and a hash of its settings: the same
	// settings give the same store, every run.
	text, err := yaml.Marshal(st.spec())
	if err != nil {
		return st, err
	}
	sum := sha256.Sum256([]byte(opts.tokens.restore(string(text))))
	st.name = "kes-" + st.backend + "-" + hex.EncodeToString(sum[:])[:8]
	return st, nil
}

// A provider sets the store's backend and returns its spec.provider key
// and value for the object, or why it cannot.
type provider func(b *storeBuilder, o *kesObject, opts convertOptions) (string, *yaml.Node, error)

// providers convert each KES backendType, by name.
var providers = map[string]provider{
	"secretsManager":         awsProvider,
	"systemManager":          awsProvider,
	"vault":                  vaultProvider,
	"azureKeyVault":          azureProvider,
	"gcpSecretsManager":      gcpProvider,
	"alicloudSecretsManager": alibabaProvider,
	"ibmcloudSecretsManager": ibmProvider,
	"akeyless":               akeylessProvider,
}

// storeBuilder fills a store's provider, noting in its todo what the user
// must fill in.
type storeBuilder struct {
	st       *store
	settings Settings
}

// todo is the setting's value, or the placeholder, noted.
func (b *storeBuilder) todo(field, setting string) *yaml.Node {
	if setting != "" && b.settings[setting] != "" {
		return str(b.settings[setting])
	}
	if setting != "" {
		b.st.todo = append(b.st.todo, fmt.Sprintf("%s: %s (or set %s)", field, Placeholder, setting))
	} else {
		b.st.todo = append(b.st.todo, fmt.Sprintf("%s: %s", field, Placeholder))
	}
	return str(Placeholder)
}

// or is the object's own value n, else the setting's (todo).
func (b *storeBuilder) or(n *yaml.Node, field, setting string) *yaml.Node {
	if n != nil && n.Value != "" {
		return clone(n)
	}
	return b.todo(field, setting)
}

// secretRef is a reference to the Secret holding key, to be named.
func (b *storeBuilder) secretRef(field, key string) *yaml.Node {
	b.st.todo = append(b.st.todo, fmt.Sprintf("%s: the Secret holding %s (name %s)", field, key, PlaceholderName))
	r := mapping()
	set(r, "name", str(PlaceholderName))
	set(r, "key", str(key))
	return r
}

// secretRefs is {wrap: {name: secretRef...}} for the named keys, in
// order: the auth block of the providers that read credentials from a
// Secret.
func (b *storeBuilder) secretRefs(prefix, wrap string, keys ...[2]string) *yaml.Node {
	ref := mapping()
	for _, k := range keys {
		set(ref, k[0], b.secretRef(prefix+"."+k[0], k[1]))
	}
	outer := mapping()
	set(outer, wrap, ref)
	return outer
}

func awsProvider(b *storeBuilder, o *kesObject, _ convertOptions) (string, *yaml.Node, error) {
	b.st.backend = "aws-secretsmanager"
	service := "SecretsManager"
	if o.spec.backendType == "systemManager" {
		b.st.backend, service = "aws-parameterstore", "ParameterStore"
	}
	aws := mapping()
	set(aws, "service", str(service))
	set(aws, "region", b.or(o.spec.region, "spec.provider.aws.region", "aws.region"))
	switch {
	case o.spec.roleArn != nil:
		set(aws, "role", clone(o.spec.roleArn))
	case b.settings["aws.role"] != "":
		set(aws, "role", str(b.settings["aws.role"]))
	}
	return "aws", aws, nil
}

func vaultProvider(b *storeBuilder, o *kesObject, _ convertOptions) (string, *yaml.Node, error) {
	b.st.backend = "vault"
	v := mapping()
	set(v, "server", b.todo("spec.provider.vault.server", "vault.server"))
	version := "v2"
	switch o.spec.kvVersion {
	case "", "2":
	case "1":
		version = "v1"
	default:
		return "", nil, refuse(o.name, "kvVersion %s: Vault's key/value engine has versions 1 and 2", o.spec.kvVersion)
	}
	set(v, "version", str(version))
	k8s := mapping()
	set(k8s, "mountPath", b.or(o.spec.vaultMountPoint, "spec.provider.vault.auth.kubernetes.mountPath", "vault.mountPath"))
	set(k8s, "role", b.or(o.spec.vaultRole, "spec.provider.vault.auth.kubernetes.role", "vault.role"))
	auth := mapping()
	set(auth, "kubernetes", k8s)
	set(v, "auth", auth)
	return "vault", v, nil
}

func azureProvider(b *storeBuilder, o *kesObject, _ convertOptions) (string, *yaml.Node, error) {
	b.st.backend = "azurekv"
	if o.spec.keyVaultName == nil {
		return "", nil, refuse(o.name, "an azureKeyVault object without keyVaultName")
	}
	az := mapping()
	url := clone(o.spec.keyVaultName)
	url.Value = "https://" + url.Value + ".vault.azure.net"
	url.Style = 0
	set(az, "vaultUrl", url)
	authType := b.settings["azure.authType"]
	if authType == "" {
		b.st.todo = append(b.st.todo, "spec.provider.azurekv.authType: written as ServicePrincipal, KES's default (AZURE_CLIENT_ID and AZURE_CLIENT_SECRET); "+
			"set azure.authType for ManagedIdentity or WorkloadIdentity")
		authType = "ServicePrincipal"
	}
	set(az, "authType", str(authType))
	if authType != "ManagedIdentity" {
		set(az, "tenantId", b.todo("spec.provider.azurekv.tenantId", "azure.tenantId"))
	}
	if authType == "ServicePrincipal" {
		ref := mapping()
		set(ref, "clientId", b.secretRef("spec.provider.azurekv.authSecretRef.clientId", "ClientID"))
		set(ref, "clientSecret", b.secretRef("spec.provider.azurekv.authSecretRef.clientSecret", "ClientSecret"))
		set(az, "authSecretRef", ref)
	}
	return "azurekv", az, nil
}

func gcpProvider(b *storeBuilder, o *kesObject, _ convertOptions) (string, *yaml.Node, error) {
	b.st.backend = "gcpsm"
	g := mapping()
	set(g, "projectID", b.or(o.spec.projectID, "spec.provider.gcpsm.projectID", "gcp.projectId"))
	b.st.todo = append(b.st.todo, "spec.provider.gcpsm.auth: none, so External Secrets Operator uses its pod's Google credentials (Workload Identity); "+
		"KES used GOOGLE_APPLICATION_CREDENTIALS: give the same service account")
	return "gcpsm", g, nil
}

func alibabaProvider(b *storeBuilder, o *kesObject, opts convertOptions) (string, *yaml.Node, error) {
	if opts.esoMajor >= 2 {
		return "", nil, refuse(o.spec.backendTypeNode, "backendType alicloudSecretsManager: External Secrets Operator 2.0 removed its Alibaba Cloud provider "+
			"(spec.provider.alibaba), so no ESO 2 store can read this secret; keep the object on KES, move the secret to a backend ESO 2 supports, "+
			"or convert for ESO 1.x with --eso-version 1")
	}
	b.st.backend = "alibaba"
	a := mapping()
	set(a, "regionID", b.todo("spec.provider.alibaba.regionID", "alibaba.region"))
	set(a, "auth", b.secretRefs("spec.provider.alibaba.auth.secretRef", "secretRef",
		[2]string{"accessKeyIDSecretRef", "accessKeyID"}, [2]string{"accessKeySecretSecretRef", "accessKeySecret"}))
	return "alibaba", a, nil
}

func ibmProvider(b *storeBuilder, _ *kesObject, _ convertOptions) (string, *yaml.Node, error) {
	b.st.backend = "ibm"
	i := mapping()
	set(i, "serviceUrl", b.todo("spec.provider.ibm.serviceUrl", "ibm.serviceUrl"))
	set(i, "auth", b.secretRefs("spec.provider.ibm.auth.secretRef", "secretRef", [2]string{"secretApiKeySecretRef", "apiKey"}))
	return "ibm", i, nil
}

func akeylessProvider(b *storeBuilder, _ *kesObject, _ convertOptions) (string, *yaml.Node, error) {
	b.st.backend = "akeyless"
	a := mapping()
	gw := b.settings["akeyless.gateway"]
	if gw == "" {
		gw = "https://api.akeyless.io" // KES's default AKEYLESS_API_ENDPOINT
	}
	set(a, "akeylessGWApiURL", str(gw))
	set(a, "authSecretRef", b.secretRefs("spec.provider.akeyless.authSecretRef.secretRef", "secretRef",
		[2]string{"accessID", "accessId"}, [2]string{"accessType", "accessType"}, [2]string{"accessTypeParam", "accessTypeParam"}))
	return "akeyless", a, nil
}

// storeObject is the store's manifest.
func (st store) object() *yaml.Node {
	md := mapping()
	set(md, "name", str(st.name))
	if st.namespace != nil {
		set(md, "namespace", clone(st.namespace))
	}
	obj := mapping()
	set(obj, "apiVersion", str("external-secrets.io/v1"))
	set(obj, "kind", str(st.kind))
	set(obj, "metadata", md)
	set(obj, "spec", st.spec())
	return obj
}

// spec is the store's spec: its controller class and provider.
func (st store) spec() *yaml.Node {
	spec := mapping()
	if st.controller != nil {
		set(spec, "controller", clone(st.controller))
	}
	set(spec, "provider", clone(st.provider))
	return spec
}

// key identifies a store: kind, namespace and name.
func (st store) key() string {
	ns := ""
	if st.namespace != nil {
		ns = st.namespace.Value
	}
	return st.kind + "/" + ns + "/" + st.name
}
