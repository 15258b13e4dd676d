"""Writes TfIdfVectorizer models the ONNX node tests leave out, for tests/models.sh to compare
with onnxruntime-node: each as OUTDIR/<case>/model.onnx with input_0.pb.

  tfidf_idf_weights     IDF with weights, int64 tokens [2, 12], unigrams and bigrams,
                        skips up to 2
  tfidf_tfidf_int32     TFIDF with weights, int32 tokens [2, 12], 1- to 3-grams, no skips
  tfidf_tfidf_noweights TFIDF without weights (the counts), one row [12], 2- and 3-grams
  tfidf_idf_noweights   IDF without weights (0 / 1), one row [12]
The node tests cover TF only. Tokens in [0, 6): most n-grams of the pool occur.
Same output for the same script (numpy PCG64, seed 0).

usage: text_ops.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def save(out, case, node, x, y_shape):
    d = os.path.join(out, case)
    os.makedirs(d, exist_ok=True)
    t = TensorProto.INT32 if x.dtype == np.int32 else TensorProto.INT64
    g = helper.make_graph([node], case, [helper.make_tensor_value_info("x", t, list(x.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, "model.onnx"))
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(d, "input_0.pb"))


def tfidf(**attrs):
    return helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)


def main(out):
    # pool: unigrams 2, 3, 5; bigrams (0,1), (2,3), (5,2), (4,4); trigram (1,2,3)
    pool = [2, 3, 5, 0, 1, 2, 3, 5, 2, 4, 4, 1, 2, 3]
    x = rng.integers(0, 6, (2, 12)).astype(np.int64)
    save(out, "tfidf_idf_weights",
         tfidf(mode="IDF", min_gram_length=1, max_gram_length=2, max_skip_count=2, ngram_counts=[0, 3, 11],
               ngram_indexes=[0, 1, 2, 3, 4, 5, 6, 7], pool_int64s=pool,
               weights=[0.5, 1.5, 2.0, 0.25, 3.0, 1.0, 0.75, 4.0]), x, [2, 8])
    save(out, "tfidf_tfidf_int32",
         tfidf(mode="TFIDF", min_gram_length=1, max_gram_length=3, max_skip_count=0, ngram_counts=[0, 3, 11],
               ngram_indexes=[7, 6, 5, 4, 3, 2, 1, 0], pool_int64s=pool,
               weights=[0.5, 1.5, 2.0, 0.25, 3.0, 1.0, 0.75, 4.0]),
         rng.integers(0, 6, (2, 12)).astype(np.int32), [2, 8])
    save(out, "tfidf_tfidf_noweights",
         tfidf(mode="TFIDF", min_gram_length=2, max_gram_length=3, max_skip_count=1, ngram_counts=[0, 3, 11],
               ngram_indexes=[0, 1, 2, 3, 4, 5, 6, 7], pool_int64s=pool),
         rng.integers(0, 6, 12).astype(np.int64), [8])
    save(out, "tfidf_idf_noweights",
         tfidf(mode="IDF", min_gram_length=1, max_gram_length=2, max_skip_count=3, ngram_counts=[0, 3, 11],
               ngram_indexes=[0, 1, 2, 3, 4, 5, 6, 7], pool_int64s=pool),
         rng.integers(0, 6, 12).astype(np.int64), [8])


if __name__ == "__main__":
    main(sys.argv[1])
