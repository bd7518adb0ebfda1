# SPDX-License-Identifier: Apache-2.0
# bash completion for gotc. The words come from "gotc __complete", which
# knows tc's grammar, the kinds of gotc's registry and their keywords, and
# the kernel's devices; this script only splits the line and offers them.
# Installed as /usr/share/bash-completion/completions/gotc; to try it from
# a clone: source completion/gotc.bash

_gotc() {
	# The line up to the cursor, split on blanks: COMP_WORDS would split
	# handles such as 1:10 at the colon.
	local line=${COMP_LINE:0:COMP_POINT}
	local -a words
	read -ra words <<<"$line"
	if [[ -z $line || $line == *[[:space:]] ]]; then
		words+=("")
	fi
	local cur=${words[${#words[@]}-1]} out w
	out=$("${words[0]}" __complete "${words[@]:1}" 2>/dev/null) || return
	COMPREPLY=()
	while IFS= read -r w; do
		if [[ $w == :file ]]; then
			compopt -o filenames 2>/dev/null
			mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
		elif [[ -n $w ]]; then
			COMPREPLY+=("$w")
		fi
	done <<<"$out"
}
complete -F _gotc gotc
