package decrypt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"filippo.io/age"
	"filippo.io/age/agessh"
	"filippo.io/age/plugin"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/google/shlex"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// ageKeys are the age identities a decrypter uses, in process: those given
// in memory, or those the environment names where the sops CLI looks for
// them (SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, SOPS_AGE_KEY_CMD, the user's
// sops/age/keys.txt, and SSH keys: SOPS_AGE_SSH_PRIVATE_KEY_FILE,
// SOPS_AGE_SSH_PRIVATE_KEY_CMD, ~/.ssh/id_ed25519, ~/.ssh/id_rsa), read
// once. An age plugin identity (AGE-PLUGIN-...) is used only when the
// policy allows its plugin by name: age would run age-plugin-<name>.
type ageKeys struct {
	given   sopsage.ParsedIdentities
	plugins func(name string) bool

	once sync.Once
	env  sopsage.ParsedIdentities
	errs []string // what could not be loaded, in words, never content
	// perRecipient are the identities the *_CMD variables print for a
	// recipient (they are told it in SOPS_AGE_RECIPIENT), by recipient.
	mu           sync.Mutex
	perRecipient map[string]sopsage.ParsedIdentities
	capped       bool // perRecipient is full: the commands run no more
}

func (a *ageKeys) decrypt(recipient string, ciphertext []byte) ([]byte, error) {
	ids := a.identities(recipient)
	if len(ids) == 0 {
		return nil, errors.New("failed to load age identities")
	}
	mk := sopsage.MasterKey{Recipient: recipient, EncryptedKey: string(ciphertext)}
	ids.ApplyToMasterKey(&mk)
	return mk.Decrypt()
}

// loadErrors are what could not be used of the identities the
// environment names, in words.
func (a *ageKeys) loadErrors() []string {
	a.once.Do(a.load)
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.errs)
}

// any reports whether there is an identity to try, without running the
// commands the environment names.
func (a *ageKeys) any() bool {
	if len(a.given) > 0 {
		return true
	}
	a.once.Do(a.load)
	if len(a.env) > 0 {
		return true
	}
	for _, k := range []string{sopsage.SopsAgeKeyCmdEnv, sopsage.SopsAgeSshPrivateKeyCmdEnv} {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}

func (a *ageKeys) identities(recipient string) sopsage.ParsedIdentities {
	if len(a.given) > 0 {
		return a.given
	}
	a.once.Do(a.load)
	ids := a.env
	if os.Getenv(sopsage.SopsAgeKeyCmdEnv) == "" && os.Getenv(sopsage.SopsAgeSshPrivateKeyCmdEnv) == "" {
		return ids
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.perRecipient == nil {
		a.perRecipient = map[string]sopsage.ParsedIdentities{}
	}
	cmd, ok := a.perRecipient[recipient]
	if !ok && len(a.perRecipient) >= maxCommandRecipients {
		// The recipients are the files' metadata, content under review:
		// a file naming thousands would run the command thousands of times.
		if !a.capped {
			a.capped = true
			a.errs = append(a.errs, fmt.Sprintf("the key commands ran for %d age recipients, the most a run asks them for; the files of "+
				"others are decrypted with the other identities only", maxCommandRecipients))
		}
		return ids
	}
	if !ok {
		cmd = a.fromCommands(recipient) // its errors go to a.errs, under a.mu
		a.perRecipient[recipient] = cmd
	}
	return append(ids[:len(ids):len(ids)], cmd...)
}

// maxCommandRecipients is how many distinct age recipients a run runs
// SOPS_AGE_KEY_CMD and SOPS_AGE_SSH_PRIVATE_KEY_CMD for.
const maxCommandRecipients = 64

// load reads the identities the environment names, except commands'.
func (a *ageKeys) load() {
	if f := os.Getenv(sopsage.SopsAgeSshPrivateKeyFileEnv); f != "" {
		a.addSSHFile(sopsage.SopsAgeSshPrivateKeyFileEnv, f)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, name := range []string{"id_ed25519", "id_rsa"} {
			if p := filepath.Join(home, ".ssh", name); fileExists(p) {
				a.addSSHFile(p, p)
			}
		}
	}
	if v, ok := os.LookupEnv(sopsage.SopsAgeKeyEnv); ok {
		a.addText(sopsage.SopsAgeKeyEnv, []byte(v), true)
	}
	if f, ok := os.LookupEnv(sopsage.SopsAgeKeyFileEnv); ok {
		a.addFile(sopsage.SopsAgeKeyFileEnv, f)
	}
	if dir, err := os.UserConfigDir(); err == nil && dir != "" {
		if p := filepath.Join(dir, filepath.FromSlash(sopsage.SopsAgeKeyUserConfigPath)); fileExists(p) {
			a.addFile(p, p)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// read reads a key file, recording why it cannot be read.
func (a *ageKeys) read(where, p string) ([]byte, bool) {
	data, err := fsutil.ReadOSFile(p, 1<<20)
	if err != nil {
		a.errs = append(a.errs, fmt.Sprintf("%s (%s) cannot be read: %v", where, p, err))
		return nil, false
	}
	return data, true
}

func (a *ageKeys) addFile(where, p string) {
	if data, ok := a.read(where, p); ok {
		a.addText(where, data, false)
	}
}

func (a *ageKeys) addSSHFile(where, p string) {
	data, ok := a.read(where, p)
	if !ok {
		return
	}
	id, err := agessh.ParseIdentity(data)
	if err != nil {
		a.errs = append(a.errs, fmt.Sprintf("%s is not an SSH private key age can use (unencrypted ed25519 or RSA)", where))
		return
	}
	a.env = append(a.env, id)
}

// addText adds the identities of text, one a line (or, words, several a
// line), # comments and blank lines skipped. A line that is no identity is
// reported by its number, never quoted.
func (a *ageKeys) addText(where string, text []byte, words bool) {
	a.env = append(a.env, a.parse(where, text, words)...)
}

func (a *ageKeys) parse(where string, text []byte, words bool) sopsage.ParsedIdentities {
	var ids sopsage.ParsedIdentities
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := []string{line}
		if words {
			fields = strings.Fields(line)
		}
		for _, f := range fields {
			id, err := a.parseIdentity(f)
			if err != nil {
				a.errs = append(a.errs, fmt.Sprintf("%s, line %d: %v", where, n, err))
				continue
			}
			ids = append(ids, id)
		}
	}
	return ids
}

func (a *ageKeys) parseIdentity(s string) (age.Identity, error) {
	switch {
	case strings.HasPrefix(s, "AGE-PLUGIN-"):
		id, err := plugin.NewIdentity(s, nil) // parses only: nothing runs until it is used
		if err != nil {
			return nil, errors.New("not a valid age plugin identity")
		}
		if a.plugins == nil || !a.plugins(id.Name()) {
			return nil, fmt.Errorf("an identity for the age plugin %q, which would run age-plugin-%s: not used unless allowed (--allow-key %s=%s)",
				id.Name(), id.Name(), sopsfile.KindAgePlugin, id.Name())
		}
		return id, nil
	case strings.HasPrefix(s, "AGE-SECRET-KEY-PQ-1"):
		id, err := age.ParseHybridIdentity(s)
		if err != nil {
			return nil, errors.New("not a valid age identity")
		}
		return id, nil
	case strings.HasPrefix(s, "AGE-SECRET-KEY-1"):
		id, err := age.ParseX25519Identity(s)
		if err != nil {
			return nil, errors.New("not a valid age identity")
		}
		return id, nil
	}
	return nil, errors.New("not an age identity (AGE-SECRET-KEY-1...)")
}

// fromCommands runs the commands the operator's environment names for
// recipient, as the sops CLI does, and reads what they print.
func (a *ageKeys) fromCommands(recipient string) sopsage.ParsedIdentities {
	var ids sopsage.ParsedIdentities
	env := append(os.Environ(), sopsage.SopsAgeRecipientEnv+"="+recipient)
	if c := os.Getenv(sopsage.SopsAgeSshPrivateKeyCmdEnv); c != "" {
		if out, err := runKeyCommand(c, env); err != nil {
			a.errs = append(a.errs, sopsage.SopsAgeSshPrivateKeyCmdEnv+": "+err.Error())
		} else if id, err := agessh.ParseIdentity(out); err != nil {
			a.errs = append(a.errs, sopsage.SopsAgeSshPrivateKeyCmdEnv+" printed no SSH private key age can use")
		} else {
			ids = append(ids, id)
		}
	}
	if c := os.Getenv(sopsage.SopsAgeKeyCmdEnv); c != "" {
		if out, err := runKeyCommand(c, env); err != nil {
			a.errs = append(a.errs, sopsage.SopsAgeKeyCmdEnv+": "+err.Error())
		} else {
			ids = append(ids, a.parse(sopsage.SopsAgeKeyCmdEnv, out, false)...)
		}
	}
	return ids
}

// runKeyCommand runs an operator's key command (split as the sops CLI
// splits it, no shell). Its error names the command's program, never what
// it printed.
func runKeyCommand(c string, env []string) ([]byte, error) {
	args, err := shlex.Split(c)
	if err != nil || len(args) == 0 {
		return nil, errors.New("the command cannot be split into words")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("running %s failed: %v", args[0], err)
	}
	return out, nil
}
