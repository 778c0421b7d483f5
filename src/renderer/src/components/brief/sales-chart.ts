/**
 * The one place Chart.js is imported. SalesChart.vue loads this module with import(), so the library
 * is a chunk of its own that the window fetches the first time a brief is drawn, not at start-up.
 * Only the pieces a grouped bar chart needs are registered: the rest of Chart.js is left out.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js'

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip)

export interface SalesChartData {
  /** One label per month of the last 12 ("Mar"; the month under way in two lines, "Dec", "so far"), oldest first. */
  labels: (string | string[])[]
  lastYear: number[]
  thisYear: number[]
  lastYearLabel: string
  thisYearLabel: string
}

/** Read from the element's CSS custom properties, so the chart follows the app's theme (or the paper's). */
export interface SalesChartColours {
  thisYear: string
  lastYear: string
  text: string
  grid: string
}

export interface SalesChartOptions {
  /** Axis ticks and tooltips: money in the rep's locale. */
  formatValue: (value: number) => string
  /** Pixels per CSS pixel: higher on paper, so a PDF's raster chart stays sharp when printed. */
  pixelRatio?: number
  onDrawn: () => void
}

export type SalesChartHandle = {
  update(data: SalesChartData, colours: SalesChartColours): void
  destroy(): void
}

function datasets(data: SalesChartData, colours: SalesChartColours) {
  return [
    { label: data.lastYearLabel, data: data.lastYear, backgroundColor: colours.lastYear, borderRadius: 2 },
    { label: data.thisYearLabel, data: data.thisYear, backgroundColor: colours.thisYear, borderRadius: 2 },
  ]
}

export function drawSalesChart(
  canvas: HTMLCanvasElement,
  data: SalesChartData,
  colours: SalesChartColours,
  options: SalesChartOptions,
): SalesChartHandle {
  const axis = (theme: SalesChartColours) => ({ ticks: { color: theme.text }, border: { color: theme.grid } })
  const chart = new Chart(canvas, {
    type: 'bar',
    data: { labels: data.labels, datasets: datasets(data, colours) },
    options: {
      // Drawn at once: the rep opens the page to read it, and a PDF is printed the moment it is asked.
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      ...(options.pixelRatio ? { devicePixelRatio: options.pixelRatio } : {}),
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { ...axis(colours), grid: { display: false } },
        y: {
          ...axis(colours),
          beginAtZero: true,
          grid: { color: colours.grid },
          // Whole amounts: a month's sales in dollars, never "$0.20" steps.
          ticks: { color: colours.text, precision: 0, callback: (value) => options.formatValue(Number(value)) },
        },
      },
      plugins: {
        legend: {
          position: 'top',
          align: 'start',
          labels: { color: colours.text, boxWidth: 12, boxHeight: 12 },
        },
        tooltip: {
          callbacks: { label: (item) => `${item.dataset.label ?? ''}: ${options.formatValue(Number(item.raw))}` },
        },
      },
    },
    plugins: [{ id: 'drawn', afterRender: () => options.onDrawn() }],
  })

  /** New figures or another theme (the window turned dark): the same chart, drawn again. */
  function update(next: SalesChartData, theme: SalesChartColours): void {
    chart.data.labels = next.labels
    chart.data.datasets = datasets(next, theme)
    const { x, y } = chart.options.scales as {
      x: { ticks: { color: string }; border: { color: string } }
      y: typeof x & { grid: { color: string } }
    }
    x.ticks.color = y.ticks.color = theme.text
    x.border.color = y.border.color = y.grid.color = theme.grid
    chart.options.plugins!.legend!.labels!.color = theme.text
    chart.update()
  }

  return { update, destroy: () => chart.destroy() }
}
