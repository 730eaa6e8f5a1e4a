# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# bash completion for memstat(8). Installed by `make install` as
# $(PREFIX)/share/bash-completion/completions/memstat. tests/pkg_test.sh checks the option lists
# against `memstat --help` / `memstat allpages --help` and the class list against `memstat --json`.

# the classes and sub-classes --class takes (the keys of "pages" and "detail" in --json)
_memstat_classes="kernel anon shmem exec page_cache hugetlb free unknown
kernel_slab kernel_slab_unreclaimable kernel_large_kmalloc kernel_pagetables kernel_reserved kernel_zsmalloc
kernel_offline kernel_guard kernel_page_pool kernel_user_mapped
kernel_compound kernel_other kernel_unstable anon_private anon_swapcache
anon_ksm page_cache_file page_cache_buffers page_cache_swapcache hugetlb_used
hugetlb_free free_buddy free_pcp free_uninit free_unaccepted kernel_slab_reclaimable"

_memstat_opts="-v --verbose -a --attributes -j --json -r --reconcile -b --backend --runs --features --jobs
-o --output -f --format --fsync --rotate-incompatible --approx --seed --by --top --min --tree --compare
--oci-bundles -w --wss --core --btf --symbols
-V --version -h --help"
_memstat_allpages_opts="--pfn --class --file --inode --cgroup --pid -f --format -b --backend --summary --jobs
-w --wss --raw-pointers --core --btf --symbols -h --help"
_memstat_map_opts="-o --output -b --backend --core --btf --symbols -h --help"
_memstat_plot_opts="--hide --only --log -o --output -h --help"
_memstat_diff_opts="-j --json --from --to -h --help"
_memstat_serve_opts="--listen --interval --by --top --min --oci-bundles -a --attributes -w --wss --approx --seed -b --backend --jobs -h --help"
_memstat_rmss_opts="-c --change -p --print -r --reset -s --start -f --final -d --delta
-n --iterations --ok-status -o --output --cgroup --zram -j --json --plot -h --help"

_memstat()
{
	local cur prev words cword allpages=0 rmss=0 i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == allpages ]] && allpages=1
		[[ $i == 1 && ${COMP_WORDS[i]} == rmss ]] && rmss=1
	done
	if ((rmss)); then
		case $prev in
		-o|--output|--plot)
			COMPREPLY=($(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
			return;;
		-c|--change|-s|--start|-f|--final|-d|--delta|-n|--iterations|--ok-status|--zram)
			return;;
		esac
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$_memstat_rmss_opts" -- "$cur"))
		else
			COMPREPLY=($(compgen -c -- "$cur"))	# the command to measure
		fi
		return
	fi

	# memstat serve: its own options, no other word
	if ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[1]} == serve ]]; then
		case $prev in
		--by)
			COMPREPLY=($(compgen -W "node zone fs cgroup pod file exec slab" -- "$cur"));;
		--oci-bundles)
			COMPREPLY=($(compgen -d -- "$cur"))
			compopt -o filenames 2>/dev/null;;
		-b|--backend)
			COMPREPLY=($(compgen -W "auto bpf kmod kpageflags" -- "$cur"));;
		--listen|--interval|--top|--min|--jobs|-w|--wss)
			;;
		*)
			COMPREPLY=($(compgen -W "$_memstat_serve_opts" -- "$cur"));;
		esac
		return
	fi

	# memstat map, plot and diff: their own options; plot's and diff's other words are files
	if ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[1]} == map || ${COMP_WORDS[1]} == plot ||
	      ${COMP_WORDS[1]} == diff ]]; then
		case $prev in
		--from|--to)
			return;;
		--hide|--only)
			local head=${cur%"${cur##*,}"} last=${cur##*,} c
			for c in $(compgen -W "kernel anon shmem exec page_cache hugetlb unknown free" -- "$last"); do
				COMPREPLY+=("$head$c")
			done
			compopt -o nospace 2>/dev/null
			return;;
		-o|--output|--core|--btf|--symbols)
			COMPREPLY=($(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
			return;;
		-b|--backend)
			COMPREPLY=($(compgen -W "auto bpf kmod kpageflags" -- "$cur"))
			return;;
		esac
		if [[ $cur == -* ]]; then
			local opts=_memstat_${COMP_WORDS[1]}_opts
			COMPREPLY=($(compgen -W "${!opts}" -- "$cur"))
		elif [[ ${COMP_WORDS[1]} != map ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
		fi
		return
	fi

	case $prev in
	-b|--backend)
		if ((allpages)); then
			COMPREPLY=($(compgen -W "auto bpf kmod" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "auto bpf kmod kpageflags" -- "$cur"))
		fi
		return;;
	-f|--format)
		if ((allpages)); then
			COMPREPLY=($(compgen -W "text csv jsonl" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "csv jsonl prom" -- "$cur"))
		fi
		return;;
	-o|--output|--file)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return;;
	--class)
		# a comma-separated list: complete the last name, keep the ones before it
		local head=${cur%"${cur##*,}"} last=${cur##*,} c
		for c in $(compgen -W "$_memstat_classes" -- "$last"); do
			COMPREPLY+=("$head$c")
		done
		compopt -o nospace 2>/dev/null
		return;;
	--by)
		COMPREPLY=($(compgen -W "node zone fs cgroup pod file exec slab process command" -- "$cur"))
		return;;
	--oci-bundles)
		COMPREPLY=($(compgen -d -- "$cur"))
		compopt -o filenames 2>/dev/null
		return;;
	--core|--btf|--symbols)
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null
		return;;
	--compare)
		COMPREPLY=($(compgen -W "free smem slabtop" -- "$cur"))
		return;;
	--jobs|--seed|--pfn|--top|--min|--inode|--cgroup|--pid|-w|--wss)
		return;;
	esac

	if ((allpages)); then
		COMPREPLY=($(compgen -W "$_memstat_allpages_opts" -- "$cur"))
	elif [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$_memstat_opts" -- "$cur"))
	else
		# the subcommand, only as the first word
		((COMP_CWORD == 1)) && COMPREPLY=($(compgen -W "allpages rmss map plot diff serve" -- "$cur"))
	fi
}
complete -F _memstat memstat
