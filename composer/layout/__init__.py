"""The layout format: what ``layouts/NAME.toml`` may say and what it means.

- :mod:`~composer.layout.vocabulary`: the names, choices and limits values are made of;
- :mod:`~composer.layout.keys`: the one table of every layout table and key (type, default,
  converter, documentation); the loader, the model's defaults and the schema all read it;
- :mod:`~composer.layout.constraints`: the cross-key rules (exactly one placement, ...), each the
  schema's rule and the loader's error;
- :mod:`~composer.layout.reader`: the value converters (a point, a length, a colour ...);
- :mod:`~composer.layout.section`: a table being read: its keys converted, unknown keys refused;
- :mod:`~composer.layout.values`: a point and a grid track, the values the reader makes;
- :mod:`~composer.layout.model`: the typed figure model, every length in pt;
- :mod:`~composer.layout.loader`: a layout file (TOML, or Python's ``layout()``) -> the model, one-line
  errors naming file, key path, bad value and valid choices;
- :mod:`~composer.layout.schema`: the JSON schema and the layout reference, made from the table;
- :mod:`~composer.layout.presets`: journal widths, print limits and label styles;
- :mod:`~composer.layout.starter`: the starter figure of ``compose new``.
"""
