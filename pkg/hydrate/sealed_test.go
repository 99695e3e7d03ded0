package hydrate_test

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	ssv1 "github.com/bitnami-labs/sealed-secrets/pkg/apis/sealedsecrets/v1alpha1"
	sscrypto "github.com/bitnami-labs/sealed-secrets/pkg/crypto"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/hydrate"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// sealedRepo is a copy of the fixture with the test controller's
// certificate in each cluster's folder.
func sealedRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS("../../testdata/monorepo")); err != nil {
		t.Fatal(err)
	}
	cert := testtool.SealedSecretsCert()
	for _, c := range []string{"dev-cluster", "prod-cluster"} {
		if err := os.WriteFile(filepath.Join(repo, "clusters", c, "sealed-secrets.pem"), []byte(cert), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

// unseal is the Secret the controller's own code unseals from doc.
func unseal(t *testing.T, doc []byte) map[string][]byte {
	t.Helper()
	var ss ssv1.SealedSecret
	if err := yaml.UnmarshalStrict(doc, &ss); err != nil {
		t.Fatalf("not a SealedSecret: %v", err)
	}
	if ss.APIVersion != "bitnami.com/v1alpha1" || ss.Kind != "SealedSecret" || ss.Scope() != ssv1.StrictScope {
		t.Errorf("%s %s, scope %v", ss.APIVersion, ss.Kind, ss.Scope())
	}
	key, _ := testtool.SealedSecretsKey()
	fp, _ := sscrypto.PublicKeyFingerprint(&key.PublicKey)
	secret, err := ss.Unseal(serializer.NewCodecFactory(runtime.NewScheme()), map[string]*rsa.PrivateKey{fp: key})
	if err != nil {
		t.Fatalf("the controller cannot unseal %s: %v", ss.Name, err)
	}
	return secret.Data
}

// secretData is a rendered Secret's data as the API server stores it:
// data decoded, stringData over it.
func secretData(t *testing.T, o manifest.Object) map[string][]byte {
	out := map[string][]byte{}
	data, _ := o.Content["data"].(map[string]any)
	for k, v := range data {
		b, err := base64.StdEncoding.DecodeString(v.(string))
		if err != nil {
			t.Fatal(err)
		}
		out[k] = b
	}
	str, _ := o.Content["stringData"].(map[string]any)
	for k, v := range str {
		out[k] = []byte(v.(string))
	}
	return out
}

// TestSealedSecrets: with --secrets sealed-secrets every Secret of the
// fixture is written as a strict-scope SealedSecret, in the Secret's
// place, that the controller's own unsealing code, with the cluster's
// private key, opens to exactly the data render makes; every other object
// is render's, byte for byte; no value of a Secret is in any file, plain
// or base64. Hydrating again with the previous output writes nothing (the
// digest keeps the ciphertext); a Secret that changed is sealed anew while
// the other manifests keep their bytes.
func TestSealedSecrets(t *testing.T) {
	testEncrypted(t, sealedRepo(t), hydrate.SecretsSealed, func(target string, o, got manifest.Object) {
		_, ns, _ := strings.Cut(target, "/") // where Argo CD applies a Secret without a namespace
		if got.Kind != "SealedSecret" || got.Name != o.Name || got.Namespace != cmp.Or(o.Namespace, ns) {
			t.Errorf("%s: %s is written as %s", target, o.ID(), got.ID())
			return
		}
		if !strings.Contains(string(got.YAML), hydrate.DigestAnnotation+": v1:") {
			t.Errorf("%s: %s has no digest", target, o.ID())
		}
		if unsealed := unseal(t, got.YAML); !reflect.DeepEqual(unsealed, secretData(t, o)) {
			t.Errorf("%s: %s does not unseal to render's data", target, o.ID())
		}
	})
}

// TestSealedCheck: without a digest key (a decrypter that derives none)
// every hydration seals anew, so --check compares SealedSecrets by their
// scope, template and keys: a fresh hydration is the same tree, a
// SealedSecret whose keys were edited is not.
func TestSealedCheck(t *testing.T) {
	testtool.UseTestKey(t)
	repo := sealedRepo(t)
	out := t.TempDir()
	first, _ := hydrateDir(t, repo, hydrate.Options{Secrets: hydrate.SecretsSealed, Decrypter: plainDecrypter{}})
	if _, err := first.Sync(out); err != nil {
		t.Fatal(err)
	}
	again, _ := hydrateDir(t, repo, hydrate.Options{Secrets: hydrate.SecretsSealed, Decrypter: plainDecrypter{}, Previous: os.DirFS(out)})
	if rep, err := again.Sync(t.TempDir()); err != nil || len(rep.Written) == 0 {
		t.Fatalf("without a digest key nothing was sealed anew (%v)", err)
	}
	if rep, err := again.Check(os.DirFS(out), ""); err != nil || rep.Len() != 0 {
		t.Fatalf("check of a fresh hydration: %+v (%v)", rep, err)
	}
	if rec, err := hydrate.Record(os.DirFS(out)); err != nil || rec.Secrets["prod-cluster"] != hydrate.SecretsSealed {
		t.Errorf("Record of a sealed output: %+v (%v)", rec, err)
	}
	file := filepath.Join(out, "prod-cluster", "namespace-b", hydrate.ManifestFile)
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), "kind: SealedSecret") {
		t.Fatalf("no SealedSecret in %s (%v)", file, err)
	}
	edited := strings.Replace(string(data), "  encryptedData:\n    ", "  encryptedData:\n    extra: AAAA\n    ", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := again.Check(os.DirFS(out), "")
	if err != nil || !reflect.DeepEqual(rep.Differs, []string{"prod-cluster/namespace-b/manifest.yaml"}) {
		t.Errorf("check of an edited SealedSecret: %+v (%v)", rep, err)
	}
}

// TestSealedFailsClosed: a missing or unusable certificate fails the
// targets with Secrets, naming the file and kubeseal's command, and no
// other target; a Secret asking for a wider scope fails its target.
func TestSealedFailsClosed(t *testing.T) {
	testtool.UseTestKey(t)
	for name, tc := range map[string]struct {
		cert []byte
		want string
	}{
		"missing":  {nil, "no such file"},
		"not PEM":  {[]byte("hello\n"), "holds no PEM certificate"},
		"bad cert": {pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("junk")}), "does not parse"},
	} {
		t.Run(name, func(t *testing.T) {
			repo := sealedRepo(t)
			file := filepath.Join(repo, "clusters", "prod-cluster", "sealed-secrets.pem")
			os.Remove(file)
			if tc.cert != nil {
				os.WriteFile(file, tc.cert, 0o644)
			}
			res, _ := hydrateDir(t, repo, hydrate.Options{Secrets: hydrate.SecretsSealed})
			if len(res.Errors) == 0 {
				t.Fatal("no target failed")
			}
			for _, err := range res.Errors {
				msg := err.Error()
				if !strings.HasPrefix(msg, "hydrate prod-cluster/") || !strings.Contains(msg, tc.want) ||
					!strings.Contains(msg, "kubeseal --fetch-cert > clusters/prod-cluster/sealed-secrets.pem") {
					t.Errorf("%v", err)
				}
			}
		})
	}
	repo := sealedRepo(t)
	tmpl := filepath.Join(repo, "namespaces", "namespace-b", "templates", "wide-secret.yaml")
	os.WriteFile(tmpl, []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: wide\n  annotations:\n    sealedsecrets.bitnami.com/cluster-wide: \"true\"\nstringData:\n  a: b\n"), 0o644)
	res, _ := hydrateDir(t, repo, hydrate.Options{Secrets: hydrate.SecretsSealed})
	if len(res.Errors) == 0 || !strings.Contains(res.Errors[0].Error(), "wider scope than strict") {
		t.Errorf("a cluster-wide Secret: %v", res.Errors)
	}
}

// plainDecrypter decrypts as the environment's SOPS keys do, but derives
// no digest keys.
type plainDecrypter struct{}

func (plainDecrypter) Decrypt(ctx context.Context, file string, data []byte) ([]byte, error) {
	return sopsDecrypter.Decrypt(ctx, file, data)
}

var sopsDecrypter = &decrypt.SOPS{}

// TestEncryptedBy: a changed certificate is a change to its cluster's
// targets in sealed-secrets mode, a changed .sops.yaml to every target in
// sops mode, and neither is one in refuse mode.
func TestEncryptedBy(t *testing.T) {
	repo, err := layout.LoadDir(context.Background(), sealedRepo(t), layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var prod, all []string
	for _, tg := range repo.Targets {
		all = append(all, tg.Name())
		if tg.Cluster == "prod-cluster" {
			prod = append(prod, tg.Name())
		}
	}
	cert := []string{"clusters/prod-cluster/sealed-secrets.pem", "namespaces/namespace-b/Chart.yaml"}
	for _, tc := range []struct {
		mode    hydrate.SecretsMode
		changed []string
		want    []string
	}{
		{hydrate.SecretsSealed, cert, prod},
		{hydrate.SecretsSOPS, cert, nil},
		{hydrate.SecretsSOPS, []string{".sops.yaml"}, all},
		{hydrate.SecretsSealed, []string{".sops.yaml"}, nil},
		{hydrate.SecretsRefuse, append(cert, ".sops.yaml"), nil},
	} {
		if got := hydrate.EncryptedBy(repo, tc.mode, tc.changed); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s, %v changed: %v, want %v", tc.mode, tc.changed, got, tc.want)
		}
	}
}

// TestPerApplication: with argocd.source hydrated, an application
// namespace's output is two folders, as generate names its Applications:
// <namespace>-security with the namespaces tier's objects (the Namespace,
// the SealedSecrets, RBAC...) and <namespace> with the rest, each what the
// plugin prints for that tier (render --argocd --tier), Secrets sealed; a
// cluster-tier namespace is one folder. Each folder's companions name the
// tier's command. Hydrating again writes nothing.
func TestPerApplication(t *testing.T) {
	testtool.UseTestKey(t)
	dir := sealedRepo(t)
	f, err := os.OpenFile(filepath.Join(dir, "repotool.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nhydrate: {secrets: sealed-secrets}\n")
	f.Close()
	repo, err := layout.LoadDir(context.Background(), dir, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	repo.Config.ArgoCD.Source = config.SourceHydrated
	hydrateRepo := func(prev fs.FS) *hydrate.Result {
		res, err := hydrate.Hydrate(context.Background(), render.New(repo, render.DefaultOptions()), repo, hydrate.Options{DrySHA: drySHA, Previous: prev})
		if err != nil || len(res.Errors) > 0 {
			t.Fatal(err, res.Errors)
		}
		return res
	}
	res := hydrateRepo(nil)
	files := map[string]string{}
	for _, f := range filesOf(t, res) {
		files[f.Path] = string(f.Data)
	}
	r := render.New(repo, render.DefaultOptions())
	split := 0
	for _, tg := range repo.Targets {
		rr, err := r.Render(context.Background(), &tg)
		if err != nil {
			t.Fatal(err)
		}
		base := tg.Cluster + "/" + tg.Namespace
		if tg.Tier == config.TierCluster {
			if _, ok := files[base+argocd.SecuritySuffix+"/manifest.yaml"]; ok || files[base+"/manifest.yaml"] == "" {
				t.Errorf("%s: a cluster-tier namespace is not one folder", tg.Name())
			}
			continue
		}
		split++
		tiers := argocd.NewTiers(repo, manifest.NewCRDs(manifest.CRDsOf(rr.Objects)...))
		for dir, tier := range map[string]config.ArgoTier{base: config.ArgoTierApplication, base + argocd.SecuritySuffix: config.ArgoTierNamespaces} {
			want, err := tiers.Split(tg, rr.Manifest, rr.Objects, tier)
			if err != nil {
				t.Fatal(err)
			}
			got := files[dir+"/manifest.yaml"]
			wantObjs, _ := manifest.Read(want)
			gotObjs, _ := manifest.Read([]byte(got))
			if len(gotObjs) != len(wantObjs) {
				t.Fatalf("%s: %d objects, the plugin's tier %s has %d", dir, len(gotObjs), tier, len(wantObjs))
			}
			for i, o := range wantObjs {
				switch {
				case o.Kind == "Secret" && (tier != config.ArgoTierNamespaces || gotObjs[i].Kind != "SealedSecret"):
					t.Errorf("%s: %s is written as %s", dir, o.ID(), gotObjs[i].ID())
				case o.Kind != "Secret" && string(o.YAML) != string(gotObjs[i].YAML):
					t.Errorf("%s: %s differs from the plugin's", dir, o.ID())
				}
			}
			if !strings.Contains(files[dir+"/hydrator.metadata"], "--tier "+string(tier)) || !strings.Contains(files[dir+"/README.md"], "--tier "+string(tier)) {
				t.Errorf("%s: the companions do not name the tier", dir)
			}
		}
	}
	if split < 3 {
		t.Fatalf("only %d application namespaces", split)
	}
	out := t.TempDir()
	if _, err := res.Sync(out); err != nil {
		t.Fatal(err)
	}
	if rep, err := hydrateRepo(os.DirFS(out)).Sync(out); err != nil || len(rep.Written)+len(rep.Removed) != 0 {
		t.Errorf("hydrating again: %+v (%v)", rep, err)
	}
}

// certValid is the test controller's key in a certificate valid from
// notBefore to notAfter, PEM-encoded.
func certValid(t *testing.T, notBefore, notAfter time.Time) []byte {
	t.Helper()
	key, _ := testtool.SealedSecretsKey()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sealed-secret"}, NotBefore: notBefore, NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestSealedCertificateValidity: a certificate that has expired, or is not
// yet valid, is refused with its dates, as kubeseal refuses it, unless
// AllowExpiredCertificate; then it seals as before.
func TestSealedCertificateValidity(t *testing.T) {
	testtool.UseTestKey(t)
	now := time.Now()
	for name, cert := range map[string][]byte{
		"expired":       certValid(t, now.Add(-48*time.Hour), now.Add(-24*time.Hour)),
		"not yet valid": certValid(t, now.Add(24*time.Hour), now.Add(48*time.Hour)),
	} {
		t.Run(name, func(t *testing.T) {
			repo := sealedRepo(t)
			if err := os.WriteFile(filepath.Join(repo, "clusters", "prod-cluster", "sealed-secrets.pem"), cert, 0o644); err != nil {
				t.Fatal(err)
			}
			res, _ := hydrateDir(t, repo, hydrate.Options{Secrets: hydrate.SecretsSealed})
			if len(res.Errors) == 0 {
				t.Fatal("no target failed")
			}
			for _, err := range res.Errors {
				if msg := err.Error(); !strings.HasPrefix(msg, "hydrate prod-cluster/") || !strings.Contains(msg, "its certificate is valid from ") ||
					!strings.Contains(msg, "--allow-expired-certificate") {
					t.Errorf("%v", err)
				}
			}
			res, _ = hydrateDir(t, repo, hydrate.Options{Secrets: hydrate.SecretsSealed, AllowExpiredCertificate: true})
			if len(res.Errors) > 0 {
				t.Fatalf("allowed: %v", res.Errors)
			}
		})
	}
}
