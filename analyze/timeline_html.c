/* SPDX-License-Identifier: MIT */
/*
 * timeline_html.c - the timeline as one standalone HTML page: the SVG of
 * timeline_svg.c inline, the data as inline JSON, and a small inline script
 * that shows, under the mouse, the buffer there (label, size, lifetime).
 * Nothing is fetched from the network.
 *
 * The script reports on itself in #memplan-status (data-state, data-areas,
 * data-buffers, data-probe, data-error), so a headless browser run can tell
 * that the page loaded, drew and found a buffer without errors.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "timeline.h"
#include "xml.h"

static const char style[] =
	"body{font-family:sans-serif;margin:16px;color:#222}"
	"#chart{position:relative;display:inline-block}"
	"#chart svg{max-width:100%;height:auto}"
	"#tip{position:absolute;pointer-events:none;background:#fff;border:1px solid #888;"
	"border-radius:4px;padding:6px 8px;font-size:12px;box-shadow:0 2px 6px rgba(0,0,0,.2);"
	"white-space:nowrap}"
	"#tip b{font-size:13px}"
	"p.note{font-size:12px;color:#555;max-width:980px}";

/*
 * The page's script.  D is the data; the picture's plot area is D.frame in
 * SVG units.  hit(x, bytes) walks the stack at x bottom up: the group whose
 * band holds bytes, then within it the listed buffers live at x in the
 * order they were allocated, then the group's unlisted rest.
 */
static const char script[] =
	"(function(){\n"
	"var st=document.getElementById('memplan-status');\n"
	"function fail(m){st.setAttribute('data-state','error');st.setAttribute('data-error',String(m));}\n"
	"window.addEventListener('error',function(e){fail(e.message||'error');});\n"
	"try{\n"
	"var D=JSON.parse(document.getElementById('memplan-data').textContent);\n"
	"var svg=document.querySelector('#chart svg'),tip=document.getElementById('tip');\n"
	"var areas=svg.querySelectorAll('path.area');\n"
	"if(areas.length!==D.groups.length)throw new Error('drew '+areas.length+' areas for '+D.groups.length+' groups');\n"
	"var U=['B','KiB','MiB','GiB','TiB','PiB'];\n"
	"function hs(n){var i=0;while(n>=1024&&i<5){n/=1024;i++;}return i?n.toFixed(2)+' '+U[i]:n+' B';}\n"
	"function hx(x){return D.axis==='ns'?((x-D.x_min)/1e6).toFixed(3)+' ms':(D.axis==='seq'?'seq ':'t=')+x;}\n"
	"function hd(d){return D.axis==='ns'?(d/1e6).toFixed(3)+' ms':d+(D.axis==='seq'?' seqs':' units');}\n"
	"var byG=[];for(var g=0;g<D.groups.length;g++)byG.push([]);\n"
	"D.buffers.forEach(function(b){byG[b[4]].push(b);});\n"
	"function step(x){var lo=0,hi=D.x.length;while(lo<hi){var m=(lo+hi)>>1;if(D.x[m]<=x)lo=m+1;else hi=m;}return lo?lo-1:0;}\n"
	"function hit(x,y){if(!D.x.length||x<D.x[0]||x>D.x_max||y<0)return null;var p=step(x),base=0;\n"
	" for(var g=0;g<D.groups.length;g++){var v=D.y[p][g];if(y<base+v){var acc=base,L=byG[g];\n"
	"  for(var i=0;i<L.length;i++){var b=L[i];if(b[2]<=x&&x<b[3]){if(y<acc+b[1])return{b:b,g:g,lo:acc};acc+=b[1];}}\n"
	"  return{g:g,rest:base+v-acc,lo:acc};}base+=v;}return null;}\n"
	"var hl=document.createElementNS('http://www.w3.org/2000/svg','rect');\n"
	"hl.setAttribute('fill','none');hl.setAttribute('stroke','#000');hl.setAttribute('stroke-width','1.5');hl.setAttribute('visibility','hidden');\n"
	"svg.appendChild(hl);\n"
	"var F=D.frame;\n"
	"function X(x){return F.left+F.plot_w*(x-D.x_min)/(D.x_max-D.x_min);}\n"
	"function Y(y){return F.top+F.plot_h-F.plot_h*y/F.y_max;}\n"
	"function label(b){return b[5]!==null?b[5]:'buffer '+b[0];}\n"
	"function line(t,bold){var e=document.createElement(bold?'b':'div');e.textContent=t;tip.appendChild(e);}\n"
	"svg.addEventListener('mousemove',function(ev){\n"
	" var pt=svg.createSVGPoint();pt.x=ev.clientX;pt.y=ev.clientY;var q=pt.matrixTransform(svg.getScreenCTM().inverse());\n"
	" var x=D.x_min+(q.x-F.left)/F.plot_w*(D.x_max-D.x_min),y=(F.top+F.plot_h-q.y)/F.plot_h*F.y_max;\n"
	" var h=(q.x>=F.left&&q.x<=F.left+F.plot_w)?hit(x,y):null;\n"
	" if(!h){tip.hidden=true;hl.setAttribute('visibility','hidden');return;}\n"
	" tip.textContent='';\n"
	" if(h.b){var b=h.b;line(label(b),1);line(hs(b[1])+' ('+b[1]+' bytes), '+D.groups[h.g].name);line('live '+hx(b[2])+' to '+hx(b[3])+' ('+hd(b[3]-b[2])+')');\n"
	"  hl.setAttribute('x',X(b[2]));hl.setAttribute('width',Math.max(1,X(b[3])-X(b[2])));hl.setAttribute('y',Y(h.lo+b[1]));hl.setAttribute('height',Math.max(1,Y(h.lo)-Y(h.lo+b[1])));hl.setAttribute('visibility','visible');}\n"
	" else{line(D.groups[h.g].name,1);line(hs(h.rest)+' in smaller buffers at '+hx(x));hl.setAttribute('visibility','hidden');}\n"
	" var r=document.getElementById('chart').getBoundingClientRect();tip.style.left=(ev.clientX-r.left+14)+'px';tip.style.top=(ev.clientY-r.top+14)+'px';tip.hidden=false;});\n"
	"svg.addEventListener('mouseleave',function(){tip.hidden=true;hl.setAttribute('visibility','hidden');});\n"
	"var pr=hit(D.peak_x,0);\n"
	/* #memplan-selftest: move the mouse over the peak, as a person would */
	"if(location.hash==='#memplan-selftest'){var c=svg.createSVGPoint();c.x=X(D.peak_x)+0.5;c.y=Y(0)-1;\n"
	" var s=c.matrixTransform(svg.getScreenCTM());\n"
	" svg.dispatchEvent(new MouseEvent('mousemove',{clientX:s.x,clientY:s.y,bubbles:true}));\n"
	" st.setAttribute('data-hover',tip.hidden?'':tip.textContent);}\n"
	"st.setAttribute('data-areas',String(areas.length));\n"
	"st.setAttribute('data-buffers',String(D.buffers.length));\n"
	"st.setAttribute('data-probe',pr?(pr.b?label(pr.b):D.groups[pr.g].name):'');\n"
	"st.setAttribute('data-error','');\n"
	"st.setAttribute('data-state','ready');\n"
	"}catch(e){fail(e&&e.message?e.message:e);}\n"
	"})();\n";

static const char *axis_name(enum timeline_axis a)
{
	return a == TIMELINE_AXIS_NS ? "ns" : a == TIMELINE_AXIS_TIME ? "time" : "seq";
}

/* The data as JSON, into f. */
static void data_json(FILE *f, const struct trace *t, const struct timeline *tl)
{
	struct timeline_frame fr;
	timeline_frame(tl, &fr);
	struct json j;
	json_init(&j, f);
	json_object(&j, NULL);
	json_string(&j, "axis", axis_name(tl->axis));
	json_string(&j, "by", timeline_by_name(tl->by));
	json_i64(&j, "x_min", tl->x_min);
	json_i64(&j, "x_max", tl->x_max);
	json_u64(&j, "peak", tl->peak);
	json_i64(&j, "peak_x", tl->peak_x);
	json_object(&j, "frame");
	json_double(&j, "left", fr.left);
	json_double(&j, "top", fr.top);
	json_double(&j, "plot_w", fr.plot_w);
	json_double(&j, "plot_h", fr.plot_h);
	json_u64(&j, "y_max", fr.y_max);
	json_object_end(&j);
	json_array(&j, "groups");
	for (size_t g = 0; g < tl->ngroups; g++) {
		json_object(&j, NULL);
		json_string(&j, "name", tl->groups[g].name);
		json_u64(&j, "max_bytes", tl->groups[g].max_bytes);
		json_u64(&j, "at_peak", tl->groups[g].at_peak);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_array(&j, "x");
	for (size_t p = 0; p < tl->npoints; p++)
		json_i64(&j, NULL, tl->x[p]);
	json_array_end(&j);
	json_array(&j, "y");
	for (size_t p = 0; p < tl->npoints; p++) {
		json_array(&j, NULL);
		for (size_t g = 0; g < tl->ngroups; g++)
			json_u64(&j, NULL, tl->y[p * tl->ngroups + g]);
		json_array_end(&j);
	}
	json_array_end(&j);
	/* [id, size, x0, x1, group, label] */
	json_array(&j, "buffers");
	for (size_t i = 0; i < tl->nbuffers; i++) {
		const struct timeline_buffer *b = &tl->buffers[i];
		json_array(&j, NULL);
		json_i64(&j, NULL, b->id);
		json_u64(&j, NULL, b->size);
		json_i64(&j, NULL, b->x0);
		json_i64(&j, NULL, b->x1);
		json_u64(&j, NULL, b->group);
		json_string(&j, NULL, t->buffers[b->id].label);
		json_array_end(&j);
	}
	json_array_end(&j);
	json_u64(&j, "buffers_total", tl->nbuffers_total);
	json_object_end(&j);
}

/*
 * Copies JSON s to f so that nothing in it can change how the HTML parser
 * reads the <script> element it sits in: not only "</script" ends it, but
 * "<!--" followed by "<script" (any case) makes the parser skip the next
 * "</script>".  Every '<' becomes the JSON escape \u003c: '<' only occurs
 * inside JSON strings, and JSON.parse gives it back.
 */
static void script_safe(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<')
			fputs("\\u003c", f);
		else
			fputc(s[i], f);
	}
}

int timeline_write_html(FILE *f, const struct trace *t,
			const struct timeline *tl, const char *title)
{
	char *data = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&data, &len);
	if (!m)
		return -1;
	data_json(m, t, tl);
	if (fclose(m) != 0) {
		free(data);
		return -1;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>memplan timeline: ", f);
	xml_escape(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<div id=\"chart\">\n", style);
	int rc = timeline_svg(f, t, tl, title, 0);
	fputs("<div id=\"tip\" hidden></div>\n</div>\n", f);
	fprintf(f, "<p class=\"note\">Hover over the picture: the %zu largest of the %zu buffers "
		   "are listed by name; the others show as their group's smaller buffers. "
		   "Each band is a group, stacked in the order of the legend.</p>\n",
		tl->nbuffers, tl->nbuffers_total);
	fputs("<div id=\"memplan-status\" data-state=\"loading\" hidden></div>\n", f);
	fputs("<script type=\"application/json\" id=\"memplan-data\">", f);
	script_safe(f, data, len);
	fprintf(f, "</script>\n<script>\n%s</script>\n</body>\n</html>\n", script);
	free(data);
	return rc || ferror(f) ? -1 : 0;
}
