"""rkt_ray: kernel files judged by `rkt eval` on a Ray cluster (docs/scale_out.md).

    import rkt_ray
    for record in rkt_ray.evaluate(["a.cu", "b.cpp"], out="runs/round1"):
        print(record["file"], record["verdict"])
"""
from rkt_ray.evaluate import evaluate

__all__ = ["evaluate"]
