"""Study renderers, one module per study (paper or part of one).

render.py imports every module of this package whose name does not start with '_' or 'test'
and merges their RENDERERS dicts: {"<study>/<item>": fn}, where fn(results, out_dir) renders a
kbench_results.Results into out_dir (through report.write_outputs) and returns the paths it
wrote. An id may be claimed by one module only. Adding a study means adding one module here.

A study module may import the shared modules (report, kbench_results), helper modules of this
package (named '_<name>': code that several modules of one study share; render.py does not
look for renderers in them) and libraries, but no other study module: the render digest covers
the shared modules, the study's own file and the helper modules it imports (render.py:
helper_modules).
"""
