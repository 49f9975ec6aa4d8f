"""`python -m rkt_ray eval FILES... --address auto`: see command_line.py."""
import sys

from rkt_ray.command_line import main

sys.exit(main())
