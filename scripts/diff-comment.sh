#!/usr/bin/env bash
# Posts the markdown parts `repotool diff --out-dir` wrote as comments on a
# pull request, idempotently. Every part starts with a marker
# ("<!-- repotool-diff part i/n -->"): the comment holding part i is
# updated in place (left alone when unchanged), a missing one is created,
# and the comments holding parts beyond the last (an earlier, longer diff)
# are deleted. Other comments are never touched.
#
# Used by action.yml (command: diff). Needs the GitHub CLI (gh) and jq, as
# GitHub's runners have them, and in the environment:
#   PARTS_DIR   the folder repotool diff --out-dir wrote
#   REPOSITORY  owner/name
#   PR_NUMBER   the pull request
#   GH_TOKEN    a token that may write pull-request comments
set -euo pipefail
: "${PARTS_DIR:?}" "${REPOSITORY:?}" "${PR_NUMBER:?}"

marker='<!-- repotool-diff part '
if [ ! -e "${PARTS_DIR}/diff-001.md" ]; then
  echo "::error::no diff in ${PARTS_DIR}: nothing is posted, and the comments already there stay" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

write() {
  if ! gh api "$@" >/dev/null 2>"$work/err"; then
    echo "::error::could not write the pull request's comments ($(head -c 300 "$work/err" | tr '\n' ' ')): the token needs the pull-requests: write permission; a pull request from a fork gets a read-only token, see docs/ci.md"
    exit 1
  fi
}

# The comments an earlier run posted: id and part number, one per line.
gh api --paginate "repos/${REPOSITORY}/issues/${PR_NUMBER}/comments?per_page=100" >"$work/comments.json"
jq -r --arg m "$marker" '.[] | select(.body | startswith($m)) | "\(.id) \(.body | ltrimstr($m) | split("/")[0])"' "$work/comments.json" | sort -n -k2 -k1 >"$work/posted"

declare -A posted=()
while read -r id part; do
  if [ -n "${posted[$part]:-}" ]; then
    write -X DELETE "repos/${REPOSITORY}/issues/comments/${id}" # a duplicate
    continue
  fi
  posted[$part]=$id
done <"$work/posted"

n=0
for f in "$PARTS_DIR"/diff-[0-9][0-9][0-9]*.md; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  id=${posted[$n]:-}
  if [ -z "$id" ]; then
    write -X POST "repos/${REPOSITORY}/issues/${PR_NUMBER}/comments" -F "body=@${f}"
    continue
  fi
  unset "posted[$n]"
  jq -j --argjson id "$id" '.[] | select(.id == $id) | .body' "$work/comments.json" >"$work/body"
  if ! cmp -s "$work/body" "$f"; then
    write -X PATCH "repos/${REPOSITORY}/issues/comments/${id}" -F "body=@${f}"
  fi
done
for part in $(printf '%s\n' "${!posted[@]}" | sort -n); do
  write -X DELETE "repos/${REPOSITORY}/issues/comments/${posted[$part]}"
done
echo "the diff is in ${n} comment(s) on pull request #${PR_NUMBER}"
