"""Editing a figure from its preview: where each placed element comes from, and a move or a resize
written back into the layout file as a person would write it (``compose serve``'s ``/NAME/edit``).

The modules, in the order an edit runs through them:

- :mod:`composer.edit.targets`: the figure's movable elements by stable ids (``panel:a``,
  ``text:title``, ``text:3``, ``shape:proj``, ``legend:0``, ``colorbar:heat``, ``connector:2.label``,
  ``connector:2.waypoint.0``), each with its table in the layout, the key path the loader's messages
  name it by, its line, and how it is placed (a cell, a relation, an anchor, coordinates).
- :mod:`composer.edit.writeback`: a move (``dx_pt``, ``dy_pt``) or a resize (``dw_pt``, ``dh_pt``)
  turned into the new value of one key (``offset``, ``at``, ``size``, a waypoint, ``label_pos`` and
  ``label_side``) in the unit written there, rounded to a step of that unit, and written as an
  exact edit of that value's characters in the file: every other byte is kept.
- :mod:`composer.edit.check`: the new text loaded by the loader (its one-line message on error) and
  the moved element's new box checked against the canvas's edge and the other panels, as ``compose
  check``'s ``outside-canvas`` and ``overlap`` rules measure them.
- :mod:`composer.edit.history`: undo and redo per figure, each an edit of the file, refused when the
  file on disk is not what the last edit wrote.
- :mod:`composer.edit.elements`: ``elements.json``, what the preview's page knows of each element
  (ids, key paths, lines, boxes, snap lines), written by the builder after each build.
- :mod:`composer.edit.session`: the routes' work (``/NAME/edit``, ``/undo``, ``/redo``, ``/open``) as plain
  calls returning an HTTP status and a JSON body, one edit at a time.

Nothing here builds or renders: the server process that answers the page runs it (see
:mod:`composer.cli.serve`).
"""

from __future__ import annotations
