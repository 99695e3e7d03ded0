package migrate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
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

// converted is a KES object in ESO terms.
type converted struct {
	object *yaml.Node // the ExternalSecret's mapping
	store  store
	todo   []string
}

// convertOptions configure convert.
type convertOptions struct {
	settings  Settings
	storeKind string // SecretStore or ClusterSecretStore
	suffix    string // --target-suffix
	esoMajor  int    // the ESO major version written for
	helm      bool   // the object is in a chart template
	tokens    *tokens
}

// convert translates a KES object into an ESO ExternalSecret and the store
// it reads from.
func convert(o *kesObject, opts convertOptions) (*converted, error) {
	st, err := storeFor(o, opts)
	if err != nil {
		return nil, err
	}
	c := &converted{store: st}
	md := mapping()
	set(md, "name", clone(o.name))
	if o.namespace != nil {
		set(md, "namespace", clone(o.namespace))
	}
	if o.labels != nil {
		set(md, "labels", clone(o.labels))
	}
	annotations := clone(o.annotations)
	if opts.suffix != "" {
		if annotations == nil {
			annotations = mapping()
		}
		set(annotations, SuffixAnnotation, str(opts.suffix))
	}
	if annotations != nil {
		set(md, "annotations", annotations)
	}
	spec := mapping()
	ref := mapping()
	set(ref, "kind", str(st.kind))
	set(ref, "name", str(st.name))
	set(spec, "secretStoreRef", ref)
	target := mapping()
	name := clone(o.name)
	name.Value += opts.suffix
	set(target, "name", name)
	if o.spec.template != nil {
		tpl, err := convertTemplate(o.spec.template, opts.helm)
		if err != nil {
			return nil, err
		}
		set(target, "template", tpl)
	}
	set(spec, "target", target)
	var data []*yaml.Node
	for _, it := range o.spec.data {
		if it.path != nil {
			continue // a path is read with dataFrom.find
		}
		if it.name == nil {
			return nil, refuse(&yaml.Node{Line: it.line}, "an entry of spec.data has a key and no name")
		}
		if !secretKeyRE.MatchString(it.name.Value) && !strings.Contains(it.name.Value, "repotoolTplAction") {
			return nil, refuse(it.name, "name %q is not a valid key of a Secret (letters, digits, '-', '_' and '.'): KES could not have written it either", it.name.Value)
		}
		rr, err := remoteRef(o, it)
		if err != nil {
			return nil, err
		}
		d := mapping()
		set(d, "secretKey", text(it.name))
		set(d, "remoteRef", rr)
		data = append(data, d)
	}
	if len(data) > 0 {
		set(spec, "data", seq(data...))
	}
	var from []*yaml.Node
	for _, it := range o.spec.data {
		if it.path == nil {
			continue
		}
		if o.spec.backendType != "systemManager" {
			return nil, refuse(it.path, "path reads every parameter under it, which KES supports for systemManager only")
		}
		from = append(from, findByPath(it))
	}
	for _, it := range o.spec.dataFrom {
		rr, err := remoteRef(o, it)
		if err != nil {
			return nil, err
		}
		e := mapping()
		set(e, "extract", rr)
		from = append(from, e)
	}
	if len(from) > 0 {
		set(spec, "dataFrom", seq(from...))
	}
	if o.spec.backendType == "ibmcloudSecretsManager" && o.spec.keyByName {
		c.todo = append(c.todo, "keyByName: KES found IBM Cloud secrets by name in any secret group; External Secrets Operator names the group: the keys say default/<type>/<name>, change default where the secret is in another group")
	}
	if o.spec.backendType == "alicloudSecretsManager" && o.spec.roleArn != nil {
		c.todo = append(c.todo, "roleArn "+o.spec.roleArn.Value+": External Secrets Operator assumes an Alibaba Cloud RAM role only with RRSA (spec.provider.alibaba.auth.rrsa); set it up in the store by hand")
	}
	obj := mapping()
	set(obj, "apiVersion", str("external-secrets.io/v1"))
	set(obj, "kind", str("ExternalSecret"))
	set(obj, "metadata", md)
	set(obj, "spec", spec)
	c.object = obj
	return c, nil
}

// secretKeyRE is what a Secret's data key may be.
var secretKeyRE = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// SuffixAnnotation marks an ESO ExternalSecret written side by side with
// its KES original (--target-suffix): its value is the suffix, which
// migrate --switch removes with the KES object.
const SuffixAnnotation = "repotool.dev/kes-target-suffix"

// remoteRef translates a data or dataFrom entry's reference.
func remoteRef(o *kesObject, it kesItem) (*yaml.Node, error) {
	rr := mapping()
	key := clone(it.key)
	if o.spec.backendType == "ibmcloudSecretsManager" {
		// ESO names an IBM secret "<type>/<id>", or "<type>/<name>" in
		// the default secret group when the key is not an ID.
		if it.secretType == nil {
			return nil, refuse(it.key, "an IBM Cloud Secrets Manager entry without secretType: External Secrets Operator needs the secret type in the key")
		}
		key.Value = it.secretType.Value + "/" + key.Value
		if o.spec.keyByName {
			key.Value = "default/" + key.Value
		}
		key.Style = 0
	}
	set(rr, "key", text(key))
	if prop := ibmProperty(o, it.property); prop != nil {
		set(rr, "property", text(prop))
	}
	switch {
	case it.version != nil && it.versionStage != nil, it.version != nil && it.versionID != nil, it.versionStage != nil && it.versionID != nil:
		return nil, refuse(it.key, "an entry sets more than one of version, versionStage and versionId")
	case it.version != nil:
		set(rr, "version", text(it.version))
	case it.versionStage != nil:
		set(rr, "version", text(it.versionStage))
	case it.versionID != nil:
		v := clone(it.versionID)
		v.Value = "uuid/" + v.Value // ESO's form for an AWS version ID
		v.Style = 0
		set(rr, "version", v)
	}
	if isTrue(it.isBinary) && o.spec.backendType != "secretsManager" {
		// KES passes a binary value on as the base64 the backend holds;
		// ESO decodes it, and the Secret holds the same bytes. (An AWS
		// Secrets Manager binary secret needs nothing: ESO reads
		// SecretBinary as bytes.)
		set(rr, "decodingStrategy", str("Base64"))
	}
	return rr, nil
}

// ibmProperty is an entry's property: KES read IBM Cloud secrets as the
// API's JSON (the value under "payload"), External Secrets Operator reads
// the secret's own fields.
func ibmProperty(o *kesObject, prop *yaml.Node) *yaml.Node {
	if prop == nil {
		return nil
	}
	p := clone(prop)
	if o.spec.backendType == "ibmcloudSecretsManager" {
		if p.Value == "payload" {
			return nil
		}
		p.Value = strings.TrimPrefix(p.Value, "payload.")
	}
	return p
}

// findByPath reads the parameters under an SSM path as KES does: named
// by the last part of their name, only the direct children unless
// recursive.
func findByPath(it kesItem) *yaml.Node {
	p := it.path.Value
	find := mapping()
	set(find, "path", clone(it.path))
	name := mapping()
	re := ".*"
	if !it.recursive {
		re = "^" + regexp.QuoteMeta(strings.TrimSuffix(p, "/")) + "/[^/]+$"
	}
	set(name, "regexp", str(re))
	set(find, "name", name)
	rewrite := mapping()
	rx := mapping()
	set(rx, "source", str("^.*/([^/]+)$"))
	set(rx, "target", str("$1"))
	set(rewrite, "regexp", rx)
	e := mapping()
	set(e, "find", find)
	set(e, "rewrite", seq(rewrite))
	return e
}

// storeFor is the store an object reads from: its backend with the
// object's settings (region, role, vault, project) and the user's.
func storeFor(o *kesObject, opts convertOptions) (store, error) {
	s := opts.settings
	st := store{kind: opts.storeKind, namespace: clone(o.namespace)}
	if st.kind == "ClusterSecretStore" {
		st.namespace = nil
	}
	p := mapping()
	todo := func(field, setting string) *yaml.Node {
		if setting != "" && s[setting] != "" {
			return str(s[setting])
		}
		if setting != "" {
			st.todo = append(st.todo, fmt.Sprintf("%s: %s (or set %s)", field, Placeholder, setting))
		} else {
			st.todo = append(st.todo, fmt.Sprintf("%s: %s", field, Placeholder))
		}
		return str(Placeholder)
	}
	secretRef := func(field, key string) *yaml.Node {
		st.todo = append(st.todo, fmt.Sprintf("%s: the Secret holding %s (name %s)", field, key, PlaceholderName))
		r := mapping()
		set(r, "name", str(PlaceholderName))
		set(r, "key", str(key))
		return r
	}
	or := func(n *yaml.Node, field, setting string) *yaml.Node {
		if n != nil && n.Value != "" {
			return clone(n)
		}
		return todo(field, setting)
	}
	switch o.spec.backendType {
	case "secretsManager", "systemManager":
		st.backend = "aws-secretsmanager"
		service := "SecretsManager"
		if o.spec.backendType == "systemManager" {
			st.backend, service = "aws-parameterstore", "ParameterStore"
		}
		aws := mapping()
		set(aws, "service", str(service))
		set(aws, "region", or(o.spec.region, "spec.provider.aws.region", "aws.region"))
		switch {
		case o.spec.roleArn != nil:
			set(aws, "role", clone(o.spec.roleArn))
		case s["aws.role"] != "":
			set(aws, "role", str(s["aws.role"]))
		}
		set(p, "aws", aws)
	case "vault":
		st.backend = "vault"
		v := mapping()
		set(v, "server", todo("spec.provider.vault.server", "vault.server"))
		version := "v2"
		switch o.spec.kvVersion {
		case "", "2":
		case "1":
			version = "v1"
		default:
			return st, refuse(o.name, "kvVersion %s: Vault's key/value engine has versions 1 and 2", o.spec.kvVersion)
		}
		set(v, "version", str(version))
		k8s := mapping()
		set(k8s, "mountPath", or(o.spec.vaultMountPoint, "spec.provider.vault.auth.kubernetes.mountPath", "vault.mountPath"))
		set(k8s, "role", or(o.spec.vaultRole, "spec.provider.vault.auth.kubernetes.role", "vault.role"))
		auth := mapping()
		set(auth, "kubernetes", k8s)
		set(v, "auth", auth)
		set(p, "vault", v)
	case "azureKeyVault":
		st.backend = "azurekv"
		az := mapping()
		if o.spec.keyVaultName == nil {
			return st, refuse(o.name, "an azureKeyVault object without keyVaultName")
		}
		url := clone(o.spec.keyVaultName)
		url.Value = "https://" + url.Value + ".vault.azure.net"
		url.Style = 0
		set(az, "vaultUrl", url)
		authType := s["azure.authType"]
		if authType == "" {
			st.todo = append(st.todo, "spec.provider.azurekv.authType: written as ServicePrincipal, KES's default (AZURE_CLIENT_ID and AZURE_CLIENT_SECRET); set azure.authType for ManagedIdentity or WorkloadIdentity")
			authType = "ServicePrincipal"
		}
		set(az, "authType", str(authType))
		if authType != "ManagedIdentity" {
			set(az, "tenantId", todo("spec.provider.azurekv.tenantId", "azure.tenantId"))
		}
		if authType == "ServicePrincipal" {
			ref := mapping()
			set(ref, "clientId", secretRef("spec.provider.azurekv.authSecretRef.clientId", "ClientID"))
			set(ref, "clientSecret", secretRef("spec.provider.azurekv.authSecretRef.clientSecret", "ClientSecret"))
			set(az, "authSecretRef", ref)
		}
		set(p, "azurekv", az)
	case "gcpSecretsManager":
		st.backend = "gcpsm"
		g := mapping()
		set(g, "projectID", or(o.spec.projectID, "spec.provider.gcpsm.projectID", "gcp.projectId"))
		set(p, "gcpsm", g)
		st.todo = append(st.todo, "spec.provider.gcpsm.auth: none, so External Secrets Operator uses its pod's Google credentials (Workload Identity); KES used GOOGLE_APPLICATION_CREDENTIALS: give the same service account")
	case "alicloudSecretsManager":
		if opts.esoMajor >= 2 {
			return st, refuse(o.spec.backendTypeNode, "backendType alicloudSecretsManager: External Secrets Operator 2.0 removed its Alibaba Cloud provider (spec.provider.alibaba), so no ESO 2 store can read this secret; keep the object on KES, move the secret to a backend ESO 2 supports, or convert for ESO 1.x with --eso-version 1")
		}
		st.backend = "alibaba"
		a := mapping()
		set(a, "regionID", todo("spec.provider.alibaba.regionID", "alibaba.region"))
		ref := mapping()
		set(ref, "accessKeyIDSecretRef", secretRef("spec.provider.alibaba.auth.secretRef.accessKeyIDSecretRef", "accessKeyID"))
		set(ref, "accessKeySecretSecretRef", secretRef("spec.provider.alibaba.auth.secretRef.accessKeySecretSecretRef", "accessKeySecret"))
		auth := mapping()
		set(auth, "secretRef", ref)
		set(a, "auth", auth)
		set(p, "alibaba", a)
	case "ibmcloudSecretsManager":
		st.backend = "ibm"
		b := mapping()
		set(b, "serviceUrl", todo("spec.provider.ibm.serviceUrl", "ibm.serviceUrl"))
		ref := mapping()
		set(ref, "secretApiKeySecretRef", secretRef("spec.provider.ibm.auth.secretRef.secretApiKeySecretRef", "apiKey"))
		auth := mapping()
		set(auth, "secretRef", ref)
		set(b, "auth", auth)
		set(p, "ibm", b)
	case "akeyless":
		st.backend = "akeyless"
		a := mapping()
		gw := s["akeyless.gateway"]
		if gw == "" {
			gw = "https://api.akeyless.io" // KES's default AKEYLESS_API_ENDPOINT
		}
		set(a, "akeylessGWApiURL", str(gw))
		ref := mapping()
		set(ref, "accessID", secretRef("spec.provider.akeyless.authSecretRef.secretRef.accessID", "accessId"))
		set(ref, "accessType", secretRef("spec.provider.akeyless.authSecretRef.secretRef.accessType", "accessType"))
		set(ref, "accessTypeParam", secretRef("spec.provider.akeyless.authSecretRef.secretRef.accessTypeParam", "accessTypeParam"))
		auth := mapping()
		set(auth, "secretRef", ref)
		set(a, "authSecretRef", auth)
		set(p, "akeyless", a)
	default:
		return st, refuse(o.spec.backendTypeNode, "backendType %q is not one KES documents (secretsManager, systemManager, vault, azureKeyVault, gcpSecretsManager, alicloudSecretsManager, ibmcloudSecretsManager, akeyless)", o.spec.backendType)
	}
	st.provider = p
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

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func set(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, str(key), v)
}

// text is a copy of a scalar that ESO takes as a string: KES took
// `version: 1` as "1", ESO's CRD refuses the number.
func text(n *yaml.Node) *yaml.Node {
	c := clone(n)
	if c != nil && c.Kind == yaml.ScalarNode {
		c.Tag = "!!str"
	}
	return c
}

// clone deep-copies a node without its comments and positions.
func clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := &yaml.Node{Kind: n.Kind, Style: n.Style, Tag: n.Tag, Value: n.Value, Anchor: n.Anchor}
	if n.Kind == yaml.AliasNode {
		return clone(n.Alias)
	}
	for _, ch := range n.Content {
		c.Content = append(c.Content, clone(ch))
	}
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
