"""TextAtari's per-game cells of the suite table, written in Python (`textatari_cells`):
a table of 17 rows × 26 games holds some 450 cells, and the template language spent
about half of the page's CPU on them at 10^5 episodes (bench/read_pages.py);
tests/leaderboard/suites/test_textatari_page.py holds them to the template's loop."""

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

FLAG = '<sup class="anchor-flag" title="anchor gap negative or within random play\'s spread">†</sup>'


@register.simple_tag
def textatari_cells(row, show_scores) -> SafeString:
    """The row's cells, one `<td>` a game, as the template's loop wrote them."""
    parts = []
    for cell in row.cells:
        if not cell.runs:
            parts.append('\n      <td class="num">—</td>\n      ')
            continue
        if show_scores:
            shown, other = cell.score_text, f"{conditional_escape(cell.normalised_text)} %"
        else:
            shown, other = cell.normalised_text, f"score {conditional_escape(cell.score_text)}"
        illegal = cell.illegal.illegal
        parts.append(
            f'\n      <td class="num"><a class="textatari-cell" data-game="{conditional_escape(cell.game.name)}" '
            f'href="{conditional_escape(cell.url)}" title="{conditional_escape(cell.hover)}">{conditional_escape(shown)}</a>'
            f'{FLAG if cell.flagged else ""}\n        <div class="muted cell-other">{other}</div>'
            + (f'\n        <div class="muted cell-illegal">{illegal} illegal</div>' if illegal else "")
            + "</td>\n      "
        )
    return mark_safe("".join(parts))
