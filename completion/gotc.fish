# SPDX-License-Identifier: Apache-2.0
# fish completion for gotc. The words come from "gotc __complete", which
# knows tc's grammar, the kinds of gotc's registry and their keywords, and
# the kernel's devices. Installed as
# /usr/share/fish/vendor_completions.d/gotc.fish.

function __gotc_complete
    set -l tokens (commandline -opc) (commandline -ct)
    for w in ($tokens[1] __complete $tokens[2..-1] 2>/dev/null)
        if test "$w" = ":file"
            __fish_complete_path (commandline -ct)
        else
            echo $w
        end
    end
end
complete -c gotc -f -a '(__gotc_complete)'
