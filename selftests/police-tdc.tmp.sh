F="police simple skbedit csum"
for k in $F; do
  echo "##### ours gotc $k"; /gotc/bin/tdc -v -tc /gotc/bin/gotc -ip /ref/bin/ip /tc-testing/tc-tests/actions/$k.json > /tmp/g.$k 2>&1; grep -E "^(ok|not ok)" /tmp/g.$k | sed 's/ - .*//' > /tmp/gv.$k; tail -2 /tmp/g.$k
  echo "##### ours ref $k"; /gotc/bin/tdc -tc /ref/bin/tc -ip /ref/bin/ip /tc-testing/tc-tests/actions/$k.json > /tmp/r.$k 2>&1; grep -E "^(ok|not ok)" /tmp/r.$k | sed 's/ - .*//' > /tmp/rv.$k; tail -2 /tmp/r.$k
  echo "##### verdict diff $k"; diff /tmp/rv.$k /tmp/gv.$k && echo same
  for id in $(diff /tmp/rv.$k /tmp/gv.$k | grep '^>' | awk '{print $NF}'); do grep -A25 " $id " /tmp/g.$k | head -30; done
done
