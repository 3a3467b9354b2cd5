"""Random-play throughput of every game beside PettingZoo's connect_four_v3 (see meeplezoo.bench).

    python benchmarks/throughput.py --seconds 3 --json benchmarks/results/throughput.json
"""

import sys

from meeplezoo.bench import main

if __name__ == "__main__":
    sys.exit(main())
