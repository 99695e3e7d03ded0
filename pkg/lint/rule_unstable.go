package lint

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

var ruleUnstableRender = &Rule{
	Rule: finding.Rule{
		ID: "unstable-render",
		Summary: "A target renders differently each time with no change to the repository: a template calls lookup, the clock or chance, or a remote " +
			"dependency is resolved from a version range.",
		Remediation: "Give the value in the values files (a SOPS-encrypted one for a secret), make it in the cluster (cert-manager, an ExternalSecret " +
			"generator, a Job), or pin the dependency with Chart.lock; see the finding for each cause.",
		Severity: SeverityWarning,
		Description: "A rendering that is not a function of the repository breaks the rendered-manifests pattern: `repotool hydrate` would commit a new " +
			"manifest on every run, Argo CD's own rendering differs from every other (an application that is never in sync, a Secret or " +
			"certificate replaced on each sync), and a reviewed diff is not what gets deployed. repotool records, while rendering, which of these " +
			"template functions each target actually calls (one in a branch its values leave untaken is not reported): lookup (it asks the " +
			"cluster; an offline rendering, Argo CD's included, gets nothing), now, ago and date without a time (the clock), randAlpha, " +
			"randAlphaNum, randAscii, randNumeric, randBytes, randInt, shuffle and uuidv4 (chance), genCA, genPrivateKey, genSelfSignedCert and " +
			"genSignedCert with their WithKey forms (a new key, serial or validity each time), and bcrypt, htpasswd and encryptAES (a random salt " +
			"or IV). Each is reported at the template and line that mention it (text given to tpl: at the tpl call), with the targets that call " +
			"it. A remote dependency whose version is a range that Chart.lock does not pin is reported at its Chart.yaml: each run takes the " +
			"newest version its repository publishes then. `repotool hydrate --strict` refuses these targets.",
		Bad: finding.Example{File: "namespaces/shop/templates/secret.yaml", Content: `stringData:
  password: {{ .Values.password | default (randAlphaNum 24) }}   # a new password on each rendering
`},
		Good: finding.Example{File: "clusters/prod/shop/prod-values-shop.secret.yaml", Content: `password: ENC[AES256_GCM,data:...]   # set once, SOPS-encrypted
`},
	},
	check: func(in *input, report func(Finding)) { checkUnstableRender(in.results, in.repo.files, report) },
}

// unstableCauses say, by function, what makes its result change.
var unstableCauses = map[string]string{
	"lookup": "asks the cluster for objects, which an offline rendering (hydrate, Argo CD's repo-server) does not have: it finds nothing here and " +
		"something in a cluster",
	"now": "reads the clock", "ago": "reads the clock", "date": "is given no time, so it reads the clock",
	"dateInZone": "is given no time, so it reads the clock", "date_in_zone": "is given no time, so it reads the clock",
	"htmlDate": "is given no time, so it reads the clock", "htmlDateInZone": "is given no time, so it reads the clock",
	"genCA": "makes a new key and certificate", "genCAWithKey": "makes a new certificate (serial, validity)",
	"genPrivateKey": "makes a new key", "genSelfSignedCert": "makes a new key and certificate",
	"genSelfSignedCertWithKey": "makes a new certificate (serial, validity)", "genSignedCert": "makes a new key and certificate",
	"genSignedCertWithKey": "makes a new certificate (serial, validity)",
	"bcrypt":               "hashes with a random salt", "htpasswd": "hashes with a random salt", "encryptAES": "encrypts with a random IV",
}

// unstableCause is what makes fn's result change.
func unstableCause(fn string) string {
	if c, ok := unstableCauses[fn]; ok {
		return c
	}
	return "makes a random value"
}

func checkUnstableRender(results []*render.Result, files *layout.Files, report func(Finding)) {
	for _, res := range results {
		if res.Err != nil {
			continue
		}
		for _, u := range res.Unstable {
			f := Finding{File: u.Source.String(), Line: u.Line, Targets: []string{res.Target.Name()}} // one finding per place: Result merges the targets
			switch {
			case u.Dependency != "":
				f.Line = lineWith(files, u.File, "name: "+u.Dependency)
				f.Message = fmt.Sprintf("the dependency %s is resolved from the version range %q, which Chart.lock does not pin: each rendering takes the newest "+
					"version its repository publishes then; "+
					"run `repotool deps update --chart %s` and commit Chart.lock (or vendor the chart)", u.Dependency, u.Version, strings.TrimSuffix(u.File, "/Chart.yaml"))
			case u.ViaTpl:
				f.Message = fmt.Sprintf("text this template gives to tpl calls %s, which %s: %s", u.Func, unstableCause(u.Func), unstableEffect(u.Func))
			default:
				f.Message = fmt.Sprintf("%s %s: %s", u.Func, unstableCause(u.Func), unstableEffect(u.Func))
			}
			report(f)
		}
	}
}

// unstableEffect is what a call of fn does to the rendering.
func unstableEffect(fn string) string {
	if fn == "lookup" {
		return "the rendering differs from what the cluster's objects would give"
	}
	return "the rendering changes on every run with no change to the repository"
}

// lineWith is the first line of the repository file p that holds needle,
// 0 when none does or p cannot be read.
func lineWith(files *layout.Files, p, needle string) int {
	data, _ := files.Get(p).Data()
	for i, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(l, []byte(needle)) {
			return i + 1
		}
	}
	return 0
}
