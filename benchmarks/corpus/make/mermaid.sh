#!/bin/sh
# Makes the corpus's mermaid SVGs: mermaid-cli (npm @mermaid-js/mermaid-cli 11.17.0, mermaid 11) driving Debian's
# chromium. Inputs: mermaid-cli's test-positive/*.mmd (MIT) and the .mmd files written for this corpus, kept
# beside the SVGs in mermaid/src/.  Install: PUPPETEER_SKIP_DOWNLOAD=1 npm install @mermaid-js/mermaid-cli
# Run from benchmarks/corpus:  sh make/mermaid.sh PATH/TO/node_modules/.bin/mmdc
MMDC=${1:-mmdc}
echo '{"executablePath": "/usr/bin/chromium", "args": ["--no-sandbox", "--disable-gpu"]}' > /tmp/mermaid-pp.json
for f in mermaid/src/*.mmd; do
  n=$(basename "$f" .mmd)
  "$MMDC" -q -p /tmp/mermaid-pp.json -b white -i "$f" -o "mermaid/$n.svg" || echo "mermaid: $n failed"
done
