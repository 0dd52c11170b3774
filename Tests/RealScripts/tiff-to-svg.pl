#!/usr/bin/perl
# Re-creates the question of Panotools-Script's tif2svg-gui: several TIFF layers, through the
# shell, starting in the folder used last, answer split on "|". Our own text.
use strict;
use warnings;
my $folder = $ENV{FILES} // $ENV{HOME};
my $answer = `zenity --file-selection --filename="$folder/" --title="Select TIFF files to assemble to SVG" --multiple`;
exit 0 if $? != 0;
chomp $answer;
my @layers = split /\|/, $answer;
print scalar(@layers), " layers: @layers\n";
