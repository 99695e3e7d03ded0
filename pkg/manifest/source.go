package manifest

import "strings"

// Source is where an object, or a finding about it, was written: a file of
// the repository, or a member of a packaged chart (a .tgz archive) in it.
type Source struct {
	// File is the repository path, slash-separated: the file itself, or
	// the archive holding it.
	File string
	// Member is the path inside the archive File; "" for a plain file.
	Member string
}

// memberSep joins an archive and its member in a reference.
const memberSep = "!"

// String is the reference repotool prints and reads back: the file, or
// "archive.tgz!member" inside a packaged chart.
func (s Source) String() string {
	if s.Member != "" {
		return s.File + memberSep + s.Member
	}
	return s.File
}

// ParseSource reads a reference written by Source.String.
func ParseSource(ref string) Source {
	file, member, _ := strings.Cut(ref, memberSep)
	return Source{File: file, Member: member}
}

// InArchive reports whether the source is a member of a packaged chart.
func (s Source) InArchive() bool { return s.Member != "" }
