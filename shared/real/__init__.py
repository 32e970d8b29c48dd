"""The real models of the course, and what notebooks 07, 08 and 09 measure with them.

Nothing is imported here, so importing one model does not load the others: ``import shared``
loads :mod:`~shared.real.glove`'s functions, never the encoder, the decoder or ``gguf``, and the
encoder's measurements never load the decoder. Import the module you need, e.g.
``from shared.real.encoder_study import real_point``.

* models and data: :mod:`~shared.real.glove` (GloVe 6B 50d word vectors, memory-mapped);
  :mod:`~shared.real.encoder` (all-MiniLM-L6-v2 in numpy); :mod:`~shared.real.corpus` (the course's
  own sentences, paraphrase pairs and traps); :mod:`~shared.real.decoder` (SmolLM2-135M-Instruct
  from its GGUF file, in numpy);
* notebook 07: :mod:`~shared.real.encoder_study` (the corpus through the encoder, layer by layer
  and remedy by remedy); :mod:`~shared.real.frequency` (word frequency against vector norm, also
  notebook 04's); :mod:`~shared.real.negatives` (traps, word-sharing and same-topic negatives, and
  the remedies measured over many splits);
* notebook 09: :mod:`~shared.real.decoder_study` (the corpus through the decoder) and
  :mod:`~shared.real.outside` (the same measurements on text not written for the course);
* :mod:`~shared.real.models`: one record per real model (its files, the libraries that read it,
  what the study store keeps of it, its notebook), read by everything that acts on every model;
  :mod:`~shared.real.build` (``python -m shared.real.build``) fills the store from the records;
* :mod:`~shared.real.study`: how a model study is kept (once per kernel, and in the machine's
  study store, :mod:`shared.store`).
"""
