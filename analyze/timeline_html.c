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
	"#chart{position:relative;display:inline-block;max-width:100%}"
	"#chart svg{max-width:100%;height:auto;cursor:crosshair;user-select:none}"
	"#tip{position:fixed;pointer-events:none;background:#fff;border:1px solid #888;"
	"border-radius:4px;padding:6px 8px;font-size:12px;box-shadow:0 2px 6px rgba(0,0,0,.2);"
	"max-width:min(560px,calc(100vw - 24px));overflow-wrap:anywhere;z-index:2}"
	"#tip b{font-size:13px}"
	"#tip .frame{font-family:monospace;font-size:11px;color:#555;white-space:pre-wrap}"
	".tools{font-size:12px;color:#555;margin:4px 0}"
	".tools button{font-size:12px;margin-right:4px}"
	"p.note{font-size:12px;color:#555;max-width:980px}";

/*
 * The page's script.  D is the data; the picture's plot area is D.frame in
 * SVG units.  hit(x, bytes) walks the stack at x bottom up: the group whose
 * band holds bytes, then within it the listed buffers live at x in the
 * order they were allocated, then the group's unlisted rest.
 */
/* one string per line: C11 promises string literals of 4095 bytes only */
static const char *const script[] = {
	"(function(){\n",
	"var st=document.getElementById('memplan-status');\n",
	"function fail(m){st.setAttribute('data-state','error');st.setAttribute('data-error',String(m));}\n",
	"window.addEventListener('error',function(e){fail(e.message||'error');});\n",
	"try{\n",
	"var D=JSON.parse(document.getElementById('memplan-data').textContent);\n",
	"var svg=document.querySelector('#chart svg'),tip=document.getElementById('tip');\n",
	"var NS='http://www.w3.org/2000/svg';\n",
	"var areas=svg.querySelectorAll('path.area'),keys=svg.querySelectorAll('g.legend g.key');\n",
	"if(areas.length!==D.groups.length)throw new Error('drew '+areas.length+' areas for '+D.groups.length+' groups');\n",
	"if(keys.length!==D.groups.length)throw new Error('the legend lists '+keys.length+' of '+D.groups.length+' groups');\n",
	"var U=['B','KiB','MiB','GiB','TiB','PiB'];\n",
	"function hs(n){var i=0;while(n>=1024&&i<5){n/=1024;i++;}return i?n.toFixed(2)+' '+U[i]:n+' B';}\n",
	"/* x values are relative to D.x_min: epoch nanoseconds do not fit a double */\n",
	"var u=D.unit,S=D.span;\n",
	"function hx(x){return D.axis==='ns'?+(x/u).toPrecision(4)+' '+D.unit_name:(D.axis==='seq'?'seq ':'t=')+(D.rel?'+'+x:String(D.x_min+x));}\n",
	"function hd(d){return D.axis==='ns'?+(d/u).toPrecision(4)+' '+D.unit_name:d+(D.axis==='seq'?' events':' units');}\n",
	"var byG=[];for(var g=0;g<D.groups.length;g++)byG.push([]);\n",
	"D.buffers.forEach(function(b){byG[b[4]].push(b);});\n",
	"function step(x){var lo=0,hi=D.x.length;while(lo<hi){var m=(lo+hi)>>1;if(D.x[m]<=x)lo=m+1;else hi=m;}return lo?lo-1:0;}\n",
	"function below(p,g){var s=0;for(var k=0;k<g;k++)s+=D.y[p][k];return s;}\n",
	"/* hit(x, bytes): the group whose band holds bytes at x, then within it the\n",
	" * listed buffers live at x in the order they were allocated, then the rest */\n",
	"function hit(x,y){if(!D.x.length||x<D.x[0]||x>S||y<0)return null;var p=step(x),base=0;\n",
	" for(var g=0;g<D.groups.length;g++){var v=D.y[p][g];if(y<base+v){var acc=base,L=byG[g];\n",
	"  for(var i=0;i<L.length;i++){var b=L[i];if(b[2]<=x&&x<b[3]){if(y<acc+b[1])return{b:b,g:g,i:i,lo:acc};acc+=b[1];}}\n",
	"  return{g:g,rest:base+v-acc};}base+=v;}return null;}\n",
	"var F=D.frame,v0=0,v1=S;\n",
	"function X(x){return F.left+F.plot_w*(x-v0)/(v1-v0);}\n",
	"function Y(y){return F.top+F.plot_h-F.plot_h*y/F.y_max;}\n",
	"function R(q){return v0+(q-F.left)/F.plot_w*(v1-v0);}\n",
	"/* the highlight: the buffer's own band, step by step over its lifetime,\n",
	" * as hit() stacks it, inside its group's area */\n",
	"var hl=document.createElementNS(NS,'path');\n",
	"hl.setAttribute('class','highlight');hl.setAttribute('fill','rgba(0,0,0,0.28)');hl.setAttribute('stroke','#000');\n",
	"hl.setAttribute('stroke-width','1');hl.setAttribute('stroke-linejoin','round');hl.setAttribute('visibility','hidden');\n",
	"hl.setAttribute('clip-path','url(#memplan-plot)');\n",
	"svg.appendChild(hl);\n",
	"var cur=null;\n",
	"function band(h){var b=h.b,g=h.g,L=byG[g],prev=[],acc=0;\n",
	" for(var i=0;i<h.i;i++)if(L[i][3]>b[2]){prev.push(L[i]);acc+=L[i][1];}\n",
	" prev.sort(function(a,c){return a[3]-c[3];});\n",
	" var k=0,top=[],bot=[];\n",
	" for(var p=step(b[2]);p<D.x.length&&D.x[p]<b[3];p++){\n",
	"  var xs=Math.max(D.x[p],b[2]),xe=Math.min(p+1<D.x.length?D.x[p+1]:S,b[3]);\n",
	"  while(k<prev.length&&prev[k][3]<=xs){acc-=prev[k][1];k++;}\n",
	"  var base=below(p,g),lo=Math.min(base+acc,base+D.y[p][g]),hi=Math.min(lo+b[1],base+D.y[p][g]);\n",
	"  top.push([xs,xe,hi]);bot.push([xs,xe,lo]);}\n",
	" if(!top.length)return '';\n",
	" var d='M'+X(top[0][0]).toFixed(1)+' '+Y(top[0][2]).toFixed(1);\n",
	" top.forEach(function(s){d+='V'+Y(s[2]).toFixed(1)+'H'+X(s[1]).toFixed(1);});\n",
	" for(var j=bot.length-1;j>=0;j--)d+='V'+Y(bot[j][2]).toFixed(1)+'H'+X(bot[j][0]).toFixed(1);\n",
	" return d+'Z';}\n",
	"function label(b){return b[5]!==null?b[5]:'buffer '+b[0];}\n",
	"function line(t,cls){var e=document.createElement(cls==='b'?'b':'div');if(cls&&cls!=='b')e.className=cls;e.textContent=t;tip.appendChild(e);}\n",
	"function hide(){tip.hidden=true;hl.setAttribute('visibility','hidden');cur=null;}\n",
	"function show(ev){\n",
	" var pt=svg.createSVGPoint();pt.x=ev.clientX;pt.y=ev.clientY;var q=pt.matrixTransform(svg.getScreenCTM().inverse());\n",
	" var x=R(q.x),y=(F.top+F.plot_h-q.y)/F.plot_h*F.y_max;\n",
	" var h=(q.x>=F.left&&q.x<=F.left+F.plot_w)?hit(x,y):null;\n",
	" if(!h){hide();return;}\n",
	" tip.textContent='';cur=h;\n",
	" if(h.b){var b=h.b;line(label(b),'b');line(hs(b[1])+' ('+b[1]+' bytes), '+D.groups[h.g].name);line('live '+hx(b[2])+' to '+hx(b[3])+' ('+hd(b[3]-b[2])+')');\n",
	"  if(b[6]>=0){var fr=D.stacks[b[6]].split('\\n');fr.slice(0,8).forEach(function(s){line(s,'frame');});if(fr.length>8)line('... '+(fr.length-8)+' more frames','frame');}\n",
	"  hl.setAttribute('d',band(h));hl.setAttribute('visibility','visible');}\n",
	" else{line(D.groups[h.g].name,'b');line(hs(h.rest)+' in smaller buffers at '+hx(x));hl.setAttribute('visibility','hidden');}\n",
	" tip.hidden=false;\n",
	" /* kept inside the window: to the left of the mouse near the right edge */\n",
	" var w=tip.offsetWidth,th=tip.offsetHeight,W=document.documentElement.clientWidth,H=document.documentElement.clientHeight;\n",
	" var l=ev.clientX+14,t=ev.clientY+14;\n",
	" if(l+w>W-4)l=ev.clientX-14-w;if(l<4)l=4;\n",
	" if(t+th>H-4)t=ev.clientY-14-th;if(t<4)t=4;\n",
	" tip.style.left=l+'px';tip.style.top=t+'px';}\n",
	"/* zoom and pan in x: the areas move by a transform, the ticks are redrawn */\n",
	"var ag=svg.querySelector('g.areas'),xt=svg.querySelector('g.xticks'),pk=svg.querySelector('g.peak');\n",
	"var pkl=pk.querySelector('line'),pkt=pk.querySelector('text');\n",
	"var im=svg.querySelectorAll('g.iterations line, g.iterations text');\n",
	"var lg=svg.querySelector('g.lanes'),rn=svg.querySelectorAll('g.range-names text');\n",
	"function nice(w){var p=1;if(!(w>0))return 1;while(p>w)p/=10;while(p*10<=w)p*=10;return w<=p?p:w<=2*p?2*p:w<=5*p?5*p:10*p;}\n",
	"function ticks(){while(xt.firstChild)xt.removeChild(xt.firstChild);\n",
	" var st8=nice((v1-v0)/u/8);if(D.axis!=='ns'&&st8<1)st8=1;var off=D.rel?0:D.x_min,labs=[];\n",
	" for(var k=Math.ceil((off+v0)/u/st8);k*st8*u-off<=v1*(1+1e-12)+1e-9&&labs.length<100;k++){\n",
	"  var at=k*st8,x=X(at*u-off),yb=F.top+F.plot_h,l=document.createElementNS(NS,'line');\n",
	"  l.setAttribute('x1',x.toFixed(1));l.setAttribute('x2',x.toFixed(1));l.setAttribute('y1',yb);l.setAttribute('y2',yb+5);l.setAttribute('stroke','#999');\n",
	"  var t=document.createElementNS(NS,'text'),s=u!==1?String(+at.toPrecision(6)):at.toFixed(0);\n",
	"  t.setAttribute('x',x.toFixed(1));t.setAttribute('y',yb+18);t.setAttribute('text-anchor','middle');t.textContent=s;\n",
	"  xt.appendChild(l);xt.appendChild(t);labs.push(s);}\n",
	" return labs;}\n",
	"function view(a,b){var m=Math.max(S/1e6,D.axis==='ns'?1000:1);if(b-a<m){var c=(a+b)/2;a=c-m/2;b=c+m/2;}\n",
	" if(b-a>S){a=0;b=S;}if(a<0){b-=a;a=0;}if(b>S){a-=b-S;b=S;}v0=Math.max(0,a);v1=b;\n",
	" var s=S/(v1-v0),tx=F.left-s*F.left-F.plot_w*v0/(v1-v0);\n",
	" ag.setAttribute('transform','matrix('+s+' 0 0 1 '+tx+' 0)');\n",
	" if(lg)lg.setAttribute('transform','matrix('+s+' 0 0 1 '+tx+' 0)');\n",
	" for(var i=0;i<rn.length;i++){var t=rn[i],a=Math.max(X(+t.getAttribute('data-x0')),F.left),b=Math.min(X(+t.getAttribute('data-x1')),F.left+F.plot_w);\n",
	"  t.setAttribute('x',((a+b)/2).toFixed(1));t.setAttribute('visibility',b-a>=6*(+t.getAttribute('data-len'))+6?'visible':'hidden');}\n",
	" for(var i=0;i<im.length;i++){var e=im[i],x=X(+e.getAttribute('data-x'));if(e.tagName==='line'){e.setAttribute('x1',x);e.setAttribute('x2',x);}else e.setAttribute('x',x+3);}\n",
	" var px=X(D.peak_x);pkl.setAttribute('x1',px);pkl.setAttribute('x2',px);\n",
	" pkt.setAttribute('x',px+(px>F.left+F.plot_w/2?-4:4));pkt.setAttribute('text-anchor',px>F.left+F.plot_w/2?'end':'start');\n",
	" pk.setAttribute('visibility',px<F.left||px>F.left+F.plot_w?'hidden':'visible');\n",
	" var labs=ticks();hide();\n",
	" st.setAttribute('data-view',v0+' '+v1);st.setAttribute('data-xticks',labs.join(' '));}\n",
	"function svgx(ev){var pt=svg.createSVGPoint();pt.x=ev.clientX;pt.y=ev.clientY;return pt.matrixTransform(svg.getScreenCTM().inverse()).x;}\n",
	"svg.addEventListener('wheel',function(ev){var q=svgx(ev);if(q<F.left||q>F.left+F.plot_w)return;ev.preventDefault();\n",
	" var c=R(q),f=ev.deltaY<0?1/1.25:1.25;view(c-(c-v0)*f,c+(v1-c)*f);},{passive:false});\n",
	"var drag=null;\n",
	"svg.addEventListener('mousedown',function(ev){drag={q:svgx(ev),a:v0,b:v1};ev.preventDefault();});\n",
	"window.addEventListener('mouseup',function(){drag=null;});\n",
	"svg.addEventListener('mousemove',function(ev){\n",
	" if(drag&&ev.buttons){var d=(svgx(ev)-drag.q)/F.plot_w*(drag.b-drag.a);view(drag.a-d,drag.b-d);return;}\n",
	" show(ev);});\n",
	"svg.addEventListener('dblclick',function(){view(0,S);});\n",
	"svg.addEventListener('mouseleave',hide);\n",
	"document.getElementById('zin').addEventListener('click',function(){var c=(v0+v1)/2,w=(v1-v0)/4;view(c-w,c+w);});\n",
	"document.getElementById('zout').addEventListener('click',function(){var c=(v0+v1)/2,w=v1-v0;view(c-w,c+w);});\n",
	"document.getElementById('zreset').addEventListener('click',function(){view(0,S);});\n",
	"var pr=hit(D.peak_x,0);\n",
	"st.setAttribute('data-view',v0+' '+v1);\n",
	"/* #memplan-selftest[;zoom=A-B][;at=F][;y=F][;notip][;nohover]: zoom to the\n",
	" * fractions A..B of the iteration, then move the mouse as a person would:\n",
	" * to the fraction F of the plot (default: the peak), at the fraction y of\n",
	" * the stack there; what happened goes into #memplan-status */\n",
	"var hash=location.hash.slice(1).split(';');\n",
	"if(hash[0]==='memplan-selftest'){var o={};hash.slice(1).forEach(function(kv){var e=kv.split('=');o[e[0]]=e.length>1?e[1]:'1';});\n",
	" if(o.zoom){var z=o.zoom.split('-');view(+z[0]*S,+z[1]*S);}\n",
	" var rx=o.at!==undefined?v0+(+o.at)*(v1-v0):D.peak_x,p=step(rx),tot=0;for(var g=0;g<D.groups.length;g++)tot+=D.y[p][g];\n",
	" var c=svg.createSVGPoint();c.x=X(rx)+0.5;c.y=o.y!==undefined?Y((+o.y)*tot):Y(0)-1;\n",
	" var s=c.matrixTransform(svg.getScreenCTM());\n",
	" if(!o.nohover)svg.dispatchEvent(new MouseEvent('mousemove',{clientX:s.x,clientY:s.y,bubbles:true}));\n",
	" st.setAttribute('data-hover',tip.hidden?'':tip.textContent);\n",
	" if(cur){st.setAttribute('data-hl-group',String(cur.g));st.setAttribute('data-hl-color',D.groups[cur.g].color);\n",
	"  st.setAttribute('data-hl-buffer',cur.b?String(cur.b[0]):'');}\n",
	" if(!tip.hidden){var r=tip.getBoundingClientRect();st.setAttribute('data-tip',[r.left,r.top,r.right,r.bottom].map(Math.round).join(' '));}\n",
	" st.setAttribute('data-window',document.documentElement.clientWidth+' '+document.documentElement.clientHeight);\n",
	" var sr=svg.getBoundingClientRect();st.setAttribute('data-svg',[sr.left,sr.top,sr.right,sr.bottom].map(Math.round).join(' '));\n",
	" if(o.notip)tip.style.visibility='hidden';}\n",
	"st.setAttribute('data-areas',String(areas.length));\n",
	"st.setAttribute('data-legend',String(keys.length));\n",
	"st.setAttribute('data-lanes',lg?String(lg.querySelectorAll('rect').length-1):'0');\n",
	"st.setAttribute('data-lanes-transform',lg?(lg.getAttribute('transform')||''):'');\n",
	"st.setAttribute('data-areas-transform',ag.getAttribute('transform')||'');\n",
	"st.setAttribute('data-buffers',String(D.buffers.length));\n",
	"st.setAttribute('data-probe',pr?(pr.b?label(pr.b):D.groups[pr.g].name):'');\n",
	"st.setAttribute('data-error','');\n",
	"st.setAttribute('data-state','ready');\n",
	"}catch(e){fail(e&&e.message?e.message:e);}\n",
	"})();\n",
	NULL
};

static const char *axis_name(enum timeline_axis a)
{
	return a == TIMELINE_AXIS_NS ? "ns" : a == TIMELINE_AXIS_TIME ? "time" : "seq";
}

/* What the stacks may add to the page: each one cut to its first frames,
 * all of them together bounded. */
#define STACK_MAX 1024
#define STACKS_MAX (1024 * 1024)

/* The bytes of s written: whole frames within STACK_MAX. */
static size_t stack_cut(const char *s)
{
	size_t n = strlen(s);
	if (n <= STACK_MAX)
		return n;
	size_t cut = 0;
	for (size_t i = 0; i < STACK_MAX; i++)
		if (s[i] == '\n')
			cut = i;
	return cut ? cut : STACK_MAX;
}

/* The index of stack s in stacks (interned: one pointer per text), added
 * if new and *room allows; -1 for none or no room. */
static long stack_index(const char **stacks, size_t *n, size_t *room, const char *s)
{
	if (!s || !*s)
		return -1;
	for (size_t i = 0; i < *n; i++)
		if (stacks[i] == s)
			return (long)i;
	size_t len = stack_cut(s);
	if (len > *room)
		return -1;
	*room -= len;
	stacks[*n] = s;
	return (long)(*n)++;
}

/*
 * The data as JSON, into f.  Every x is counted from x_min (an epoch in ns
 * does not fit the doubles of JavaScript); a stack is written once however
 * many buffers share it.  Returns 0 or -1 (out of memory).
 */
static int data_json(FILE *f, const struct trace *t, const struct timeline *tl)
{
	struct timeline_frame fr;
	timeline_frame(tl, &fr);
	const char **stacks = calloc(tl->nbuffers + 1, sizeof(*stacks));
	long *sidx = calloc(tl->nbuffers + 1, sizeof(*sidx));
	size_t nstacks = 0, room = STACKS_MAX;
	if (!stacks || !sidx) {
		free(stacks);
		free(sidx);
		return -1;
	}
	for (size_t i = 0; i < tl->nbuffers; i++)
		sidx[i] = stack_index(stacks, &nstacks, &room,
				      t->buffers[tl->buffers[i].id].stack);
	struct json j;
	json_init(&j, f);
	json_object(&j, NULL);
	json_string(&j, "axis", axis_name(tl->axis));
	json_string(&j, "by", timeline_by_name(tl->by));
	json_i64(&j, "x_min", tl->x_min);
	json_i64(&j, "span", tl->x_max - tl->x_min);
	json_bool(&j, "rel", timeline_x_relative(tl));
	const char *un;
	json_double(&j, "unit", timeline_x_unit(tl, &un));
	json_string(&j, "unit_name", un);
	json_u64(&j, "peak", tl->peak);
	json_i64(&j, "peak_x", tl->peak_x - tl->x_min);
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
		json_string(&j, "color", timeline_color(tl, g));
		json_u64(&j, "max_bytes", tl->groups[g].max_bytes);
		json_u64(&j, "at_peak", tl->groups[g].at_peak);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_array(&j, "x");
	for (size_t p = 0; p < tl->npoints; p++)
		json_i64(&j, NULL, tl->x[p] - tl->x_min);
	json_array_end(&j);
	json_array(&j, "y");
	for (size_t p = 0; p < tl->npoints; p++) {
		json_array(&j, NULL);
		for (size_t g = 0; g < tl->ngroups; g++)
			json_u64(&j, NULL, tl->y[p * tl->ngroups + g]);
		json_array_end(&j);
	}
	json_array_end(&j);
	/* [id, size, x0, x1, group, label, stack index or -1] */
	json_array(&j, "buffers");
	for (size_t i = 0; i < tl->nbuffers; i++) {
		const struct timeline_buffer *b = &tl->buffers[i];
		json_array(&j, NULL);
		json_i64(&j, NULL, b->id);
		json_u64(&j, NULL, b->size);
		json_i64(&j, NULL, b->x0 - tl->x_min);
		json_i64(&j, NULL, b->x1 - tl->x_min);
		json_u64(&j, NULL, b->group);
		json_string(&j, NULL, t->buffers[b->id].label);
		json_i64(&j, NULL, sidx[i]);
		json_array_end(&j);
	}
	json_array_end(&j);
	json_array(&j, "stacks");
	for (size_t i = 0; i < nstacks; i++) {
		size_t len = stack_cut(stacks[i]);
		char *cut = strndup(stacks[i], len);
		json_string(&j, NULL, cut ? cut : "");
		free(cut);
	}
	json_array_end(&j);
	json_u64(&j, "buffers_total", tl->nbuffers_total);
	json_object_end(&j);
	free(stacks);
	free(sidx);
	return 0;
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
	int bad = data_json(m, t, tl);
	if (fclose(m) != 0 || bad) {
		free(data);
		return -1;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>memplan timeline: ", f);
	xml_escape(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n"
		   "<div class=\"tools\"><button id=\"zin\" type=\"button\">zoom in</button>"
		   "<button id=\"zout\" type=\"button\">zoom out</button>"
		   "<button id=\"zreset\" type=\"button\">whole iteration</button> "
		   "or the mouse wheel over the plot to zoom, drag to pan, double-click for the whole iteration</div>\n"
		   "<div id=\"chart\">\n", style);
	int rc = timeline_svg(f, t, tl, title, 0);
	fputs("<div id=\"tip\" hidden></div>\n</div>\n", f);
	fprintf(f, "<p class=\"note\">Hover over the picture: the %zu largest of the %zu buffers "
		   "are listed by name, with the call stack where the trace has one, and their own "
		   "band outlined; the others show as their group's smaller buffers. "
		   "Each band is a group, stacked in the order of the legend, which gives what "
		   "each held at the peak.</p>\n",
		tl->nbuffers, tl->nbuffers_total);
	fputs("<div id=\"memplan-status\" data-state=\"loading\" hidden></div>\n", f);
	fputs("<script type=\"application/json\" id=\"memplan-data\">", f);
	script_safe(f, data, len);
	fputs("</script>\n<script>\n", f);
	for (size_t i = 0; script[i]; i++)
		fputs(script[i], f);
	fputs("</script>\n</body>\n</html>\n", f);
	free(data);
	return rc || ferror(f) ? -1 : 0;
}
